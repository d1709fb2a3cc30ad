/// One report of an HCI_LE_Advertising_Report event (Core Vol 4 Part E §7.7.65.2).
///
/// The spec prints the event's parameters as parallel arrays, but controllers and the Linux kernel
/// (`hci_le_adv_report_evt`) lay each report out contiguously: event type, address type, address, data
/// length, data, RSSI. That contiguous layout is what is decoded here [I: following Linux].
public struct LEAdvertisingReport: Sendable, Hashable {
  /// 0 ADV_IND, 1 ADV_DIRECT_IND, 2 ADV_SCAN_IND, 3 ADV_NONCONN_IND, 4 SCAN_RSP.
  public var eventType: UInt8
  /// 0 public, 1 random, 2 public identity, 3 random identity.
  public var addressType: UInt8
  public var address: BluetoothAddress
  public var data: [UInt8]
  /// dBm; 127 = not available.
  public var rssi: Int8

  /// Every report of one event: Num_Reports, then the reports.
  public static func decodeAll(_ parameters: [UInt8]) throws -> [LEAdvertisingReport] {
    var reader = HCIWireReader(parameters, context: "LE Advertising Report")
    let count = Int(try reader.u8())
    var reports: [LEAdvertisingReport] = []
    for _ in 0..<count {
      let eventType = try reader.u8()
      let addressType = try reader.u8()
      let address = try reader.address()
      let length = Int(try reader.u8())
      let data = try reader.take(length)
      let rssi = try reader.i8()
      reports.append(.init(eventType: eventType, addressType: addressType, address: address, data: data, rssi: rssi))
    }
    return reports
  }

  /// The scanner-neutral report, or nil for an event type outside 0–4.
  public func advertisingReport(at timestamp: ContinuousClock.Instant) -> AdvertisingReport? {
    guard let kind = AdvertisingReport.Kind(rawValue: eventType) else { return nil }
    return AdvertisingReport(
      address: address, addressType: hciAddressType(addressType), kind: kind, rssi: rssi, data: data,
      timestamp: timestamp)
  }
}

/// One report of an HCI_LE_Extended_Advertising_Report event (§7.7.65.13), laid out contiguously (24 fixed
/// octets, then the data).
public struct LEExtendedAdvertisingReport: Sendable, Hashable {
  /// Bits: 0 connectable, 1 scannable, 2 directed, 3 scan response, 4 legacy PDU, 5–6 data status.
  public var eventType: UInt16
  /// 0 public, 1 random, 2/3 identity, 0xFF anonymous.
  public var addressType: UInt8
  public var address: BluetoothAddress
  public var rssi: Int8
  public var data: [UInt8]

  /// 0 complete, 1 incomplete (more to come), 2 incomplete (truncated).
  public var dataStatus: UInt8 { UInt8(eventType >> 5 & 0x03) }

  public static func decodeAll(_ parameters: [UInt8]) throws -> [LEExtendedAdvertisingReport] {
    var reader = HCIWireReader(parameters, context: "LE Extended Advertising Report")
    let count = Int(try reader.u8())
    var reports: [LEExtendedAdvertisingReport] = []
    for _ in 0..<count {
      let eventType = try reader.u16()
      let addressType = try reader.u8()
      let address = try reader.address()
      _ = try reader.take(4)  // primary PHY, secondary PHY, SID, TX power
      let rssi = try reader.i8()
      _ = try reader.take(9)  // periodic interval (2), direct address type (1), direct address (6)
      let length = Int(try reader.u8())
      let data = try reader.take(length)
      reports.append(.init(eventType: eventType, addressType: addressType, address: address, rssi: rssi, data: data))
    }
    return reports
  }

  /// The legacy PDU kind this report stands for. Legacy PDUs use the fixed patterns of §7.7.65.13
  /// (0x13 ADV_IND, 0x15 ADV_DIRECT_IND, 0x12 ADV_SCAN_IND, 0x10 ADV_NONCONN_IND, 0x1B/0x1A SCAN_RSP);
  /// extended PDUs are classified by their bits.
  public var kind: AdvertisingReport.Kind {
    let bits = eventType & 0x1F
    if bits & 0x08 != 0 { return .scanResponse }
    if bits & 0x04 != 0 { return .directed }
    if bits & 0x01 != 0 { return .connectable }
    if bits & 0x02 != 0 { return .scannable }
    return .nonConnectable
  }

  /// The scanner-neutral report; nil for anonymous advertisers (no address) and for fragments with more
  /// data to come (status 1) [I: fragment reassembly is not needed for beacons, whose legacy PDUs always
  /// fit one report; a truncated report (status 2) is passed on with the data that arrived].
  public func advertisingReport(at timestamp: ContinuousClock.Instant) -> AdvertisingReport? {
    guard addressType != 0xFF, dataStatus != 1 else { return nil }
    return AdvertisingReport(
      address: address, addressType: hciAddressType(addressType), kind: kind, rssi: rssi, data: data,
      timestamp: timestamp)
  }
}

/// HCI address types 0/2 (public, public identity) → public; 1/3 (random, random identity) → random.
func hciAddressType(_ raw: UInt8) -> AddressType {
  raw & 0x01 == 0 ? .public : .random
}
