/// The first byte of every FEA1/FEA2 frame: `(dataType << 4) | pduTag` (docs/protocols/kbeacon.md §4.1).
public struct FrameHeader: Hashable, Sendable, CustomStringConvertible {
  /// The high nibble. Its meaning depends on the direction (§4.1 table); the case names say both.
  public enum DataType: UInt8, Sendable {
    /// app→device HEX request; device→app ack of a HEX request.
    case hex = 0
    /// Auth frames both ways.
    case auth = 1
    /// app→device JSON request; device→app ack of a JSON request.
    case json = 2
    /// device→app JSON report fragment; app→device ack of a JSON report.
    case jsonReport = 3
    /// device→app HEX report fragment; app→device ack of a HEX report.
    case hexReport = 5
  }

  /// The low nibble: where the frame sits in its message.
  public enum Position: UInt8, Sendable {
    case start = 0
    case middle = 1
    case end = 2
    /// A whole message in one frame; also used for every ack and auth frame.
    case single = 3
  }

  public var dataType: DataType
  public var position: Position

  public init(_ dataType: DataType, _ position: Position) {
    self.dataType = dataType
    self.position = position
  }

  /// Parses a header byte. An unknown nibble is a malformed frame.
  public init(byte: UInt8) throws(KBeaconError) {
    guard let type = DataType(rawValue: byte >> 4) else {
      throw .malformedFrame("unknown data type \(byte >> 4) in header 0x\(String(byte, radix: 16))")
    }
    guard let position = Position(rawValue: byte & 0x0F) else {
      throw .malformedFrame("unknown frame position \(byte & 0x0F) in header 0x\(String(byte, radix: 16))")
    }
    self.init(type, position)
  }

  public var byte: UInt8 { dataType.rawValue << 4 | position.rawValue }

  public var description: String { "\(dataType)/\(position)" }
}

/// How many payload bytes one frame may carry (docs/protocols/kbeacon.md §4.2, §16 step 5).
public enum FrameBudget {
  /// ATT MTU assumed before authentication (BLE 4.0 default, `BLE4_MTU_SIZE`).
  public static let defaultATTMTU = 23

  /// Payload bytes of a request or report frame for an ATT MTU: 3 bytes of ATT write/notify header and 3
  /// bytes of frame header. Before auth (MTU 23) that is the spec's 17 bytes.
  public static func payloadBytes(attMTU: Int) -> Int { max(1, attMTU - 6) }

  /// After auth: the smaller of the link's negotiated MTU and the MTU the device reported in auth phase 2
  /// (JAP `negotiatedFrameBudget`; safe on BlueZ where the two may differ) [I].
  public static func payloadBytes(linkMTU: Int, reportedMTU: Int) -> Int {
    payloadBytes(attMTU: min(linkMTU, reportedMTU))
  }
}
