/// What an `HCIAdvertiser` puts on the air: the legacy PDU type, the interval and the raw AD bytes of the
/// advertisement and of the scan response (Core Vol 6 Part B §2.3.1; Vol 3 Part C §11).
public struct AdvertisingSettings: Sendable, Hashable {
  /// ADV_IND (connectable, scannable); when not connectable, ADV_SCAN_IND if there is a scan response (a
  /// named iBeacon: scannable, so active scanners get the name) and ADV_NONCONN_IND if not (`pdu`).
  public var connectable: Bool
  /// Advertising interval in units of 0.625 ms; 0x0020 (20 ms) … 0x4000 (10.24 s) for legacy PDUs.
  public var interval: UInt16
  /// At most 31 octets of AD structures.
  public var advertisingData: [UInt8]
  /// At most 31 octets; sent only to active scanners.
  public var scanResponseData: [UInt8]
  /// nil: advertise with the controller's public address (own address type 0x00). Else advertise with
  /// this LE random address (own address type 0x01), which `HCIAdvertiser` programs first (§7.8.4, or
  /// §7.8.52 for an extended advertising set) — a Secure DFU bootloader at the application's address + 1
  /// (docs/protocols/nordic-dfu.md §2.2) on a controller whose public address cannot change.
  public var randomAddress: BluetoothAddress?

  public init(
    connectable: Bool, interval: UInt16 = 0x00A0, advertisingData: [UInt8], scanResponseData: [UInt8] = [],
    randomAddress: BluetoothAddress? = nil
  ) {
    self.connectable = connectable
    self.interval = interval
    self.advertisingData = advertisingData
    self.scanResponseData = scanResponseData
    self.randomAddress = randomAddress
  }

  /// Own_Address_Type of the advertising parameters: 0x00 public, 0x01 random.
  public var ownAddressType: UInt8 { randomAddress == nil ? 0x00 : 0x01 }

  /// The legacy PDU these settings advertise with (see `connectable`).
  public var pdu: LegacyAdvertisingPDU {
    connectable ? .advInd : (scanResponseData.isEmpty ? .advNonconnInd : .advScanInd)
  }
}

/// The three undirected legacy advertising PDUs (Core Vol 6 Part B §2.3.1.1, §2.3.1.3, §2.3.1.4) and how
/// the HCI advertising parameters name each.
public enum LegacyAdvertisingPDU: Sendable, Hashable {
  /// Connectable and scannable.
  case advInd
  /// Scannable, not connectable.
  case advScanInd
  /// Neither.
  case advNonconnInd

  /// Advertising_Type of HCI_LE_Set_Advertising_Parameters (Vol 4 Part E §7.8.5).
  public var advertisingType: UInt8 {
    switch self {
    case .advInd: 0x00
    case .advScanInd: 0x02
    case .advNonconnInd: 0x03
    }
  }

  /// Advertising_Event_Properties of HCI_LE_Set_Extended_Advertising_Parameters for the same legacy PDU
  /// (§7.8.53, table "legacy advertising PDU"): bit 4 legacy, bit 1 scannable, bit 0 connectable.
  public var extendedProperties: UInt16 {
    switch self {
    case .advInd: 0x0013
    case .advScanInd: 0x0012
    case .advNonconnInd: 0x0010
    }
  }
}

/// Legacy LE advertising commands (Core Vol 4 Part E §7.8.5–§7.8.9) and their extended equivalents on one
/// advertising set with legacy PDUs (§7.8.53–§7.8.56), for controllers the kernel drives with extended
/// advertising.
extension HCICommand {
  /// The largest legacy AD payload.
  public static let legacyAdvertisingDataLimit = 31

  /// HCI_LE_Set_Advertising_Parameters: min = max interval, type (`settings.pdu`: 0x00 ADV_IND, 0x02
  /// ADV_SCAN_IND, 0x03 ADV_NONCONN_IND),
  /// own address type (`settings.ownAddressType`), peer address type/address zero (undirected), all three
  /// channels (0x07), filter policy 0.
  public static func leSetAdvertisingParameters(_ settings: AdvertisingSettings) -> HCICommand {
    HCICommand(
      .leSetAdvertisingParameters,
      le16(settings.interval) + le16(settings.interval) + [settings.pdu.advertisingType, settings.ownAddressType, 0x00]
        + [UInt8](repeating: 0, count: 6) + [0x07, 0x00])
  }

  /// HCI_LE_Set_Advertising_Data: length, then the data padded with zeros to 31 octets.
  public static func leSetAdvertisingData(_ data: [UInt8]) -> HCICommand {
    HCICommand(.leSetAdvertisingData, padded31(data))
  }

  /// HCI_LE_Set_Scan_Response_Data: same layout as the advertising data.
  public static func leSetScanResponseData(_ data: [UInt8]) -> HCICommand {
    HCICommand(.leSetScanResponseData, padded31(data))
  }

  /// HCI_LE_Set_Advertising_Enable.
  public static func leSetAdvertisingEnable(_ enable: Bool) -> HCICommand {
    HCICommand(.leSetAdvertisingEnable, [enable ? 0x01 : 0x00])
  }

  /// HCI_LE_Set_Extended_Advertising_Parameters for set `handle` with legacy PDUs: properties
  /// (`settings.pdu`) 0x0013 (legacy ADV_IND: connectable|scannable|legacy), 0x0012 (legacy ADV_SCAN_IND)
  /// or 0x0010 (legacy ADV_NONCONN_IND), 3-octet intervals,
  /// channels 0x07, own address type (`settings.ownAddressType`), undirected, filter 0, TX power 0x7F (no
  /// preference), primary PHY 1M, max skip 0, secondary PHY 1M, SID 0, no scan request notifications.
  public static func leSetExtendedAdvertisingParameters(handle: UInt8, _ settings: AdvertisingSettings) -> HCICommand {
    let interval = [UInt8(settings.interval & 0xFF), UInt8(settings.interval >> 8), 0x00]
    return HCICommand(
      .leSetExtendedAdvertisingParameters,
      [handle] + le16(settings.pdu.extendedProperties) + interval + interval
        + [0x07, settings.ownAddressType, 0x00] + [UInt8](repeating: 0, count: 6) + [
          0x00, 0x7F, 0x01, 0x00, 0x01, 0x00, 0x00,
        ])
  }

  /// HCI_LE_Set_Advertising_Set_Random_Address (§7.8.52): handle, then the address least significant
  /// octet first. The set must exist (its parameters set) first.
  public static func leSetAdvertisingSetRandomAddress(handle: UInt8, _ address: BluetoothAddress) -> HCICommand {
    HCICommand(.leSetAdvertisingSetRandomAddress, [handle] + address.littleEndianBytes)
  }

  /// HCI_LE_Set_Extended_Advertising_Data: handle, operation 0x03 (complete data), fragment preference
  /// 0x01 (controller should not fragment), length, data.
  public static func leSetExtendedAdvertisingData(handle: UInt8, _ data: [UInt8]) -> HCICommand {
    HCICommand(.leSetExtendedAdvertisingData, [handle, 0x03, 0x01, UInt8(data.count)] + data)
  }

  /// HCI_LE_Set_Extended_Scan_Response_Data: same layout as the extended advertising data.
  public static func leSetExtendedScanResponseData(handle: UInt8, _ data: [UInt8]) -> HCICommand {
    HCICommand(.leSetExtendedScanResponseData, [handle, 0x03, 0x01, UInt8(data.count)] + data)
  }

  /// HCI_LE_Set_Extended_Advertising_Enable for one set: enable, 1 set, handle, duration 0 (until
  /// disabled), max events 0 (no limit).
  public static func leSetExtendedAdvertisingEnable(_ enable: Bool, handle: UInt8) -> HCICommand {
    HCICommand(.leSetExtendedAdvertisingEnable, [enable ? 0x01 : 0x00, 0x01, handle, 0x00, 0x00, 0x00])
  }

  /// `data.count` then `data` padded with zeros to 31 octets; longer data is cut at 31 (callers validate
  /// with `AdvertisingSettings` limits first).
  private static func padded31(_ data: [UInt8]) -> [UInt8] {
    let body = Array(data.prefix(legacyAdvertisingDataLimit))
    return [UInt8(body.count)] + body + [UInt8](repeating: 0, count: legacyAdvertisingDataLimit - body.count)
  }
}
