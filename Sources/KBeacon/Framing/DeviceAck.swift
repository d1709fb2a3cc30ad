/// A device→app ack of a request: `[header][seq u16][window u16][cause u16][payload…]` — the 6-byte ack head
/// `DATA_ACK_HEAD_LEN` after the header byte (docs/protocols/kbeacon.md §4.3). Data type 2 acks JSON requests,
/// 0 HEX requests; the position nibble is SINGLE.
public struct DeviceAck: Hashable, Sendable {
  public var dataType: FrameHeader.DataType
  /// For cause 4, the offset of the next fragment the device wants; otherwise bytes received [I] — the
  /// whole request's length on an ack that answers it (the simulated device's choice, reasoned in
  /// `SimulatedKBeaconDevice.reply`). Like KKM's SDKs, `RequestExchange` reads it only for cause 4.
  public var seq: UInt16
  /// Ignored by the SDKs; real BCPro sends 0 (§4.3) [C3].
  public var window: UInt16
  public var cause: DeviceCause
  /// A short response riding on the ack (cause 0 for reads; cause 5 may carry the first report bytes).
  public var payload: [UInt8]

  public init(
    dataType: FrameHeader.DataType, seq: UInt16 = 0, window: UInt16 = 0, cause: DeviceCause, payload: [UInt8] = []
  ) {
    self.dataType = dataType
    self.seq = seq
    self.window = window
    self.cause = cause
    self.payload = payload
  }

  public init(bytes: some Collection<UInt8>) throws(KBeaconError) {
    var reader = FrameReader(bytes)
    let header = try FrameHeader(byte: reader.u8("header"))
    guard header.dataType == .json || header.dataType == .hex else {
      throw .malformedFrame("data type \(header.dataType) is not a request ack")
    }
    let seq = try reader.u16("ack seq")
    let window = try reader.u16("ack window")
    let cause = DeviceCause(try reader.u16("ack cause"))
    self.init(dataType: header.dataType, seq: seq, window: window, cause: cause, payload: reader.rest())
  }

  public var bytes: [UInt8] {
    var out = [FrameHeader(dataType, .single).byte]
    out.appendBigEndian(seq)
    out.appendBigEndian(window)
    out.appendBigEndian(cause.rawValue)
    return out + payload
  }
}
