import Foundation

/// The lines a child process writes to a pipe, as they arrive; the stream finishes at end of file.
///
/// Read with blocking reads on a thread of its own (never the cooperative pool), not with the pipe's
/// `readabilityHandler`: on Linux that handler sometimes is not called at end of file
/// (swift-corelibs-foundation issue 3275, SR-12080) — seen as `TxrxConsoleTests` waiting forever after
/// `.quit` on a loaded machine, the console, its pane and tmux all gone and no process left holding the
/// pipe's write end. A blocking `read` returns 0 at end of file every time.
public enum ProcessLines {
  public static func stream(_ pipe: Pipe) -> AsyncStream<String> {
    let (lines, sink) = AsyncStream.makeStream(of: String.self)
    let handle = pipe.fileHandleForReading
    let reader = Thread {
      var buffer: [UInt8] = []
      while true {
        let data = handle.availableData  // blocks until bytes arrive or every writer has closed the pipe
        if data.isEmpty { break }
        buffer += data
        while let newline = buffer.firstIndex(of: 0x0A) {
          sink.yield(String(decoding: buffer[..<newline], as: UTF8.self))
          buffer.removeSubrange(...newline)
        }
      }
      if !buffer.isEmpty { sink.yield(String(decoding: buffer, as: UTF8.self)) }
      sink.finish()
    }
    reader.name = "ProcessLines"
    reader.start()
    return lines
  }
}
