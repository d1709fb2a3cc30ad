import Foundation
import Synchronization

/// The lines a child process writes to a pipe, as they arrive (the pipe's readability handler, no polling);
/// the stream finishes at end of file.
enum ProcessLines {
  private final class Partial: Sendable {
    let bytes = Mutex<[UInt8]>([])
  }

  static func stream(_ pipe: Pipe) -> AsyncStream<String> {
    let (lines, sink) = AsyncStream.makeStream(of: String.self)
    let partial = Partial()
    pipe.fileHandleForReading.readabilityHandler = { handle in
      let data = handle.availableData
      guard !data.isEmpty else {
        handle.readabilityHandler = nil
        sink.finish()
        return
      }
      let complete = partial.bytes.withLock { buffer -> [String] in
        buffer += data
        var out: [String] = []
        while let newline = buffer.firstIndex(of: 0x0A) {
          out.append(String(decoding: buffer[..<newline], as: UTF8.self))
          buffer.removeSubrange(...newline)
        }
        return out
      }
      for line in complete { sink.yield(line) }
    }
    return lines
  }
}
