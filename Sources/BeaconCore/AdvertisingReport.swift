/// One advertising or scan-response PDU as a scanner saw it: the raw AD bytes are kept so the one real
/// parser (`AdvertisingData`) decodes everything, live or simulated.
public struct AdvertisingReport: Sendable, Hashable {
  /// The legacy advertising PDU types as reported in HCI LE Advertising Report events
  /// (Core Vol 4 Part E §7.7.65.2, `Event_Type`).
  public enum Kind: UInt8, Sendable, Hashable, Codable {
    /// ADV_IND: connectable, scannable.
    case connectable = 0x00
    /// ADV_DIRECT_IND.
    case directed = 0x01
    /// ADV_SCAN_IND: scannable, not connectable.
    case scannable = 0x02
    /// ADV_NONCONN_IND.
    case nonConnectable = 0x03
    /// SCAN_RSP.
    case scanResponse = 0x04

    public var isConnectable: Bool { self == .connectable || self == .directed }
  }

  public var address: BluetoothAddress
  public var addressType: AddressType
  public var kind: Kind
  /// dBm; 127 means "not available" in HCI.
  public var rssi: Int8
  /// The AD structures exactly as received (Core Vol 3 Part C §11).
  public var data: [UInt8]
  /// When the report was received, as a duration since an arbitrary epoch of the scanner's clock.
  public var timestamp: ContinuousClock.Instant

  public init(
    address: BluetoothAddress, addressType: AddressType, kind: Kind, rssi: Int8, data: [UInt8],
    timestamp: ContinuousClock.Instant = .now
  ) {
    self.address = address
    self.addressType = addressType
    self.kind = kind
    self.rssi = rssi
    self.data = data
    self.timestamp = timestamp
  }
}
