/// An app→device request fragment: `[header][offset u16][payload…]` (docs/protocols/kbeacon.md §4.2). The
/// offset ("seq") is the payload's byte position in the whole message.
public struct RequestFrame: Hashable, Sendable {
  /// `.json` or `.hex`.
  public var dataType: FrameHeader.DataType
  public var position: FrameHeader.Position
  public var offset: UInt16
  public var payload: [UInt8]

  public init(dataType: FrameHeader.DataType, position: FrameHeader.Position, offset: UInt16, payload: [UInt8]) {
    self.dataType = dataType
    self.position = position
    self.offset = offset
    self.payload = payload
  }

  public init(bytes: some Collection<UInt8>) throws(KBeaconError) {
    var reader = FrameReader(bytes)
    let header = try FrameHeader(byte: reader.u8("header"))
    guard header.dataType == .json || header.dataType == .hex else {
      throw .malformedFrame("data type \(header.dataType) is not a request")
    }
    self.init(
      dataType: header.dataType, position: header.position, offset: try reader.u16("offset"), payload: reader.rest())
  }

  public var bytes: [UInt8] {
    var out = [FrameHeader(dataType, position).byte]
    out.appendBigEndian(offset)
    return out + payload
  }

  /// Splits a message into the frames that carry it, `budget` payload bytes each (§4.2): one SINGLE frame
  /// when it fits, else START, MIDDLE…, END. The app sends the first and then one per cause-4 ack.
  public static func fragments(of message: [UInt8], dataType: FrameHeader.DataType, budget: Int) -> [RequestFrame] {
    Fragmenter.pieces(count: message.count, budget: budget).map {
      RequestFrame(
        dataType: dataType, position: $0.position, offset: UInt16($0.range.lowerBound),
        payload: Array(message[$0.range]))
    }
  }

  /// The one fragment that starts at `offset` (what the device asked for with cause 4), or nil when
  /// `offset` is not inside the message.
  public static func fragment(of message: [UInt8], dataType: FrameHeader.DataType, from offset: Int, budget: Int)
    -> RequestFrame?
  {
    guard offset >= 0, offset < message.count, offset <= Int(UInt16.max) else { return nil }
    let end = min(message.count, offset + max(1, budget))
    let position: FrameHeader.Position =
      offset == 0
      ? (end == message.count ? .single : .start)
      : (end == message.count ? .end : .middle)
    return RequestFrame(
      dataType: dataType, position: position, offset: UInt16(offset), payload: Array(message[offset..<end]))
  }
}

/// The fragmentation rule of §4.2/§4.4, shared by requests and reports.
enum Fragmenter {
  static func pieces(count: Int, budget: Int) -> [(position: FrameHeader.Position, range: Range<Int>)] {
    let budget = max(1, budget)
    if count <= budget { return [(.single, 0..<count)] }
    var out: [(FrameHeader.Position, Range<Int>)] = []
    var offset = 0
    while offset < count {
      let end = min(count, offset + budget)
      out.append((offset == 0 ? .start : (end == count ? .end : .middle), offset..<end))
      offset = end
    }
    return out
  }
}
