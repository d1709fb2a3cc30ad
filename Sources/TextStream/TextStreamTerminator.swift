/// What is appended to each command before it is fragmented (docs/protocols/text-stream.md "Append the profile's
/// terminator"). Answers are not split by it: an answer ends by silence (`TextStreamExchange`).
public enum TextStreamTerminator: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  /// Carriage return (the Zhaga TxRx profile).
  case cr
  /// Carriage return and line feed (every Tertium profile but Zhaga).
  case crlf
  /// Line feed alone (some AT-command firmwares over the Nordic UART Service).
  case lf
  /// Nothing appended (devices that frame by write, not by line).
  case none

  public var bytes: [UInt8] {
    switch self {
    case .cr: [0x0D]
    case .crlf: [0x0D, 0x0A]
    case .lf: [0x0A]
    case .none: []
    }
  }

  public var description: String { rawValue }
}
