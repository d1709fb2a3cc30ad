import Foundation
import OwnThreads

/// The lines a child process writes to a pipe, as they arrive; the stream finishes at end of file.
///
/// Read with blocking reads on a thread of its own (never the cooperative pool), not with the pipe's
/// `readabilityHandler`: on Linux that handler sometimes is not called at end of file
/// (swift-corelibs-foundation issue 3275, SR-12080) — seen as `TxrxConsoleTests` waiting forever after
/// `.quit` on a loaded machine, the console, its pane and tmux all gone and no process left holding the
/// pipe's write end. A blocking `read` returns 0 at end of file every time.
public enum ProcessLines {
  /// The lines read from `descriptor` (a pipe's read end, which this takes over and closes at end of file).
  public static func stream(descriptor: Int32) -> AsyncStream<String> {
    let (lines, sink) = AsyncStream.makeStream(of: String.self)
    let reader = Thread {
      var buffer: [UInt8] = []
      var chunk = [UInt8](repeating: 0, count: 65_536)
      while true {
        // Blocks until bytes arrive or every writer has closed the pipe (0).
        let n = Interrupted.retry { chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) } }
        if n <= 0 { break }
        buffer += chunk[0..<n]
        while let newline = buffer.firstIndex(of: 0x0A) {
          sink.yield(String(decoding: buffer[..<newline], as: UTF8.self))
          buffer.removeSubrange(...newline)
        }
      }
      close(descriptor)
      if !buffer.isEmpty { sink.yield(String(decoding: buffer, as: UTF8.self)) }
      sink.finish()
    }
    reader.name = "ProcessLines"
    reader.start()
    return lines
  }
}
