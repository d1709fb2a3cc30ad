/// LE scanning commands, legacy (Core Vol 4 Part E §7.8.10, §7.8.11) and extended (§7.8.64, §7.8.65).
/// Which set to use is decided by `LocalSupportedCommands.supportsExtendedScan` (docs/protocols/linux-ble.md §4 item 2).
extension HCICommand {
  /// The address type the scanner uses in SCAN_REQ: 0 public (our choice: the adapter's identity; the
  /// kernel, not us, manages random/private addresses).
  static let ownAddressPublic: UInt8 = 0x00

  /// HCI_LE_Set_Scan_Parameters: type (0 passive, 1 active), interval, window (units of 0.625 ms),
  /// own address type, filter policy 0 (accept all).
  public static func leSetScanParameters(_ scan: ScanParameters) -> HCICommand {
    HCICommand(
      .leSetScanParameters,
      [scan.active ? 0x01 : 0x00] + le16(scan.interval) + le16(scan.window) + [ownAddressPublic, 0x00])
  }

  /// HCI_LE_Set_Scan_Enable: enable, filter duplicates. beacon-provision keeps duplicates (RSSI and TLM
  /// counters change between reports), so `filterDuplicates` defaults to false.
  public static func leSetScanEnable(_ enable: Bool, filterDuplicates: Bool = false) -> HCICommand {
    HCICommand(.leSetScanEnable, [enable ? 0x01 : 0x00, filterDuplicates ? 0x01 : 0x00])
  }

  /// HCI_LE_Set_Extended_Scan_Parameters on the LE 1M PHY only: own address type, filter policy 0,
  /// Scanning_PHYs = 0x01 (1M), then for that PHY: type, interval, window.
  public static func leSetExtendedScanParameters(_ scan: ScanParameters) -> HCICommand {
    HCICommand(
      .leSetExtendedScanParameters,
      [ownAddressPublic, 0x00, 0x01, scan.active ? 0x01 : 0x00] + le16(scan.interval) + le16(scan.window))
  }

  /// HCI_LE_Set_Extended_Scan_Enable: enable, filter duplicates, Duration 0 and Period 0 (scan until
  /// disabled).
  public static func leSetExtendedScanEnable(_ enable: Bool, filterDuplicates: Bool = false) -> HCICommand {
    HCICommand(.leSetExtendedScanEnable, [enable ? 0x01 : 0x00, filterDuplicates ? 0x01 : 0x00, 0, 0, 0, 0])
  }
}

/// Two octets, least significant first.
func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
