/// One answer of a text-stream device: the notified bytes concatenated in arrival order, ended by silence
/// (docs/protocols/text-stream.md), and how many notifications carried them.
public struct TextStreamAnswer: Sendable, Hashable {
  public var bytes: [UInt8]
  /// Notifications that made up the answer.
  public var notifications: Int

  public init(bytes: [UInt8], notifications: Int) {
    self.bytes = bytes
    self.notifications = notifications
  }

  /// The answer as text (UTF-8; a byte that is not is shown as U+FFFD).
  public var text: String { String(decoding: bytes, as: UTF8.self) }

  /// The text without trailing CR and LF, the form answers are compared and printed in.
  public var trimmedText: String {
    var end = bytes.endIndex
    while end > bytes.startIndex, bytes[end - 1] == 0x0D || bytes[end - 1] == 0x0A { end -= 1 }
    return String(decoding: bytes[..<end], as: UTF8.self)
  }

  /// The answer's lines, split at CR, LF or CRLF, empty ones dropped.
  public var lines: [String] {
    bytes.split(whereSeparator: { $0 == 0x0D || $0 == 0x0A }).map { String(decoding: $0, as: UTF8.self) }
  }
}
