/// The one bounds-checked reader over a received byte array that every wire decoder uses: HCI events and mgmt
/// packets (`HCIWireReader`), ATT PDUs (`ATTByteReader`) and KBeacon frames (`FrameReader` in KBeacon). A read
/// returns its value or throws the decoder's own error, made by `short`, so a short or lying length field
/// never reads out of bounds and malformed input becomes a typed error, never a trap. Multi-octet integers come
/// in the order the protocol sends them: least significant octet first for HCI, mgmt and ATT
/// (docs/protocols/linux-ble.md), most significant first for KBeacon (docs/protocols/kbeacon.md §4).
public struct ByteReader<Failure: Error>: Sendable {
  /// How a protocol orders the octets of an integer.
  public enum Order: Sendable { case littleEndian, bigEndian }

  public let bytes: [UInt8]
  /// The next octet to read.
  public private(set) var offset: Int
  public let order: Order
  /// The error for a read of `needed` octets at `offset` that the bytes do not hold; `what` names the field
  /// when the decoder does.
  private let short: @Sendable (_ needed: Int, _ offset: Int, _ what: String) -> Failure

  public init(
    _ bytes: some Collection<UInt8>, at offset: Int = 0, order: Order,
    short: @escaping @Sendable (_ needed: Int, _ offset: Int, _ what: String) -> Failure
  ) {
    self.bytes = Array(bytes)
    self.offset = offset
    self.order = order
    self.short = short
  }

  /// The octets not read yet (never negative).
  public var remaining: Int { max(0, bytes.count - offset) }

  public mutating func u8(_ what: String = "") throws(Failure) -> UInt8 {
    UInt8(truncatingIfNeeded: try integer(1, what))
  }

  public mutating func u16(_ what: String = "") throws(Failure) -> UInt16 {
    UInt16(truncatingIfNeeded: try integer(2, what))
  }

  public mutating func u32(_ what: String = "") throws(Failure) -> UInt32 {
    UInt32(truncatingIfNeeded: try integer(4, what))
  }

  /// The next `count` octets.
  public mutating func take(_ count: Int, _ what: String = "") throws(Failure) -> [UInt8] {
    guard count >= 0, remaining >= count else { throw short(count, offset, what) }
    defer { offset += count }
    return Array(bytes[offset..<offset + count])
  }

  /// Everything not read yet (possibly nothing).
  public mutating func rest() -> [UInt8] {
    defer { offset = max(offset, bytes.count) }
    return offset < bytes.count ? Array(bytes[offset...]) : []
  }

  /// The next `size` octets as an integer in the protocol's order.
  private mutating func integer(_ size: Int, _ what: String) throws(Failure) -> UInt64 {
    guard remaining >= size else { throw short(size, offset, what) }
    defer { offset += size }
    var value: UInt64 = 0
    for i in 0..<size {
      value = value << 8 | UInt64(bytes[offset + (order == .bigEndian ? i : size - 1 - i)])
    }
    return value
  }
}
