/// A device→app report fragment: `[header][offset u16][data…]`, data type 3 (JSON) or 5 (HEX)
/// (docs/protocols/kbeacon.md §4.4).
public struct ReportFragment: Hashable, Sendable {
  public var dataType: FrameHeader.DataType
  public var position: FrameHeader.Position
  public var offset: UInt16
  public var data: [UInt8]

  public init(dataType: FrameHeader.DataType, position: FrameHeader.Position, offset: UInt16, data: [UInt8]) {
    self.dataType = dataType
    self.position = position
    self.offset = offset
    self.data = data
  }

  public init(bytes: some Collection<UInt8>) throws(KBeaconError) {
    var reader = FrameReader(bytes)
    let header = try FrameHeader(byte: reader.u8("header"))
    guard header.dataType == .jsonReport || header.dataType == .hexReport else {
      throw .malformedFrame("data type \(header.dataType) is not a report")
    }
    self.init(
      dataType: header.dataType, position: header.position, offset: try reader.u16("report offset"), data: reader.rest()
    )
  }

  public var bytes: [UInt8] {
    var out = [FrameHeader(dataType, position).byte]
    out.appendBigEndian(offset)
    return out + data
  }

  /// The fragments of a report message, `budget` data bytes each.
  public static func fragments(of message: [UInt8], dataType: FrameHeader.DataType, budget: Int) -> [ReportFragment] {
    Fragmenter.pieces(count: message.count, budget: budget).map {
      ReportFragment(
        dataType: dataType, position: $0.position, offset: UInt16($0.range.lowerBound), data: Array(message[$0.range]))
    }
  }
}

/// The app's 7-byte ack of a report fragment: `[(type<<4)|3][recvLen u16][window u16 = 1000][cause u16]`
/// (docs/protocols/kbeacon.md §4.4, A2 `configSendDataRptAck`). Example JSON ack: `33 LL LL 03 E8 00 00`.
public struct ReportAck: Hashable, Sendable {
  /// The window value both v2 SDKs send.
  public static let sdkWindow: UInt16 = 1000

  /// `.jsonReport` (3) or `.hexReport` (5).
  public var dataType: FrameHeader.DataType
  /// Bytes of the report held so far.
  public var receivedLength: UInt16
  public var window: UInt16
  /// 0 = OK, 1 = sequence or overflow error.
  public var errorCause: UInt16

  public static let causeOK: UInt16 = 0
  public static let causeSequenceError: UInt16 = 1

  public init(
    dataType: FrameHeader.DataType, receivedLength: UInt16, window: UInt16 = sdkWindow, errorCause: UInt16 = causeOK
  ) {
    self.dataType = dataType
    self.receivedLength = receivedLength
    self.window = window
    self.errorCause = errorCause
  }

  public init(bytes: some Collection<UInt8>) throws(KBeaconError) {
    var reader = FrameReader(bytes)
    let header = try FrameHeader(byte: reader.u8("header"))
    guard header.dataType == .jsonReport || header.dataType == .hexReport else {
      throw .malformedFrame("data type \(header.dataType) is not a report ack")
    }
    self.init(
      dataType: header.dataType, receivedLength: try reader.u16("received length"), window: try reader.u16("window"),
      errorCause: try reader.u16("cause"))
  }

  public var bytes: [UInt8] {
    var out = [FrameHeader(dataType, .single).byte]
    out.appendBigEndian(receivedLength)
    out.appendBigEndian(window)
    out.appendBigEndian(errorCause)
    return out
  }
}
