import Foundation
import HTTP
import Synchronization

/// A download's progress on standard error — bytes, rate and ETA redrawn on one line — only when standard
/// error is a terminal; off a terminal nothing is written (a log gets the result lines only).
final class DownloadProgress: Sendable {
  let isTerminal: Bool
  private let label: Mutex<String>

  init(isTerminal: Bool = isatty(STDERR_FILENO) == 1) {
    self.isTerminal = isTerminal
    label = Mutex("")
  }

  /// Names the file the next progress lines are about.
  func start(_ name: String) { label.withLock { $0 = name } }

  func note(_ line: String) { FileHandleOutput.standardError(line) }

  func show(_ p: HTTPTransferProgress) {
    guard isTerminal else { return }
    FileHandle.standardError.write(Data(("\r\u{1B}[K" + Self.text(p, label: label.withLock { $0 })).utf8))
    if let total = p.total, p.bytes >= total { FileHandle.standardError.write(Data("\n".utf8)) }
  }

  /// "KBPro_V514.zip  2.3 KiB / 4.5 KiB  51%  1.2 KiB/s  ETA 2 s"
  static func text(_ p: HTTPTransferProgress, label: String) -> String {
    var parts = [label, size(p.bytes) + (p.total.map { " / " + size($0) } ?? "")]
    if let total = p.total, total > 0 { parts.append("\(p.bytes * 100 / total)%") }
    parts.append(size(Int64(p.bytesPerSecond)) + "/s")
    if let total = p.total, p.bytesPerSecond > 0 {
      parts.append("ETA \(Int((Double(total - p.bytes) / p.bytesPerSecond).rounded(.up))) s")
    }
    return parts.filter { !$0.isEmpty }.joined(separator: "  ")
  }

  static func size(_ bytes: Int64) -> String {
    bytes < 1024
      ? "\(bytes) B"
      : bytes < 1 << 20
        ? String(format: "%.1f KiB", Double(bytes) / 1024)
        : String(format: "%.1f MiB", Double(bytes) / 1_048_576)
  }
}
