import Testing

@testable import BeaconCore

/// HCI command packets (Core Vol 4 Part E §5.4.1, §7) byte for byte. Every vector is:
/// indicator 01 | opcode (LE) | parameter length | parameters.
@Suite(.timeLimit(.minutes(1))) struct HCICommandTests {
  @Test func opcodeSplitsIntoGroupAndCommandFields() {
    // 0x200C = OGF 0x08 (LE Controller) << 10 | OCF 0x000C.
    #expect(HCIOpcode.leSetScanEnable.rawValue == 0x200C)
    #expect(HCIOpcode.leSetScanEnable.ogf == 0x08 && HCIOpcode.leSetScanEnable.ocf == 0x000C)
    #expect(HCIOpcode.reset.rawValue == 0x0C03)
    #expect(HCIOpcode.readLocalSupportedCommands.rawValue == 0x1002)
    #expect(HCIOpcode.leSetScanEnable.description == "LE Set Scan Enable")
    #expect(HCIOpcode(rawValue: 0xFC01).description == "opcode 0xFC01")
  }

  @Test func parameterlessCommands() {
    // 01 | 03 0C (Reset) | 00
    #expect(HCICommand.reset.packet == [0x01, 0x03, 0x0C, 0x00])
    // 01 | 02 10 (Read Local Supported Commands) | 00
    #expect(HCICommand.readLocalSupportedCommands.packet == [0x01, 0x02, 0x10, 0x00])
  }

  @Test func legacyScanCommands() {
    // 01 | 0B 20 | 07 | 01 active | 10 00 interval 10 ms | 08 00 window 5 ms | 00 own public | 00 accept all
    let active = ScanParameters(active: true, interval: 0x0010, window: 0x0008)
    #expect(
      HCICommand.leSetScanParameters(active).packet == [
        0x01, 0x0B, 0x20, 0x07, 0x01, 0x10, 0x00, 0x08, 0x00, 0x00, 0x00,
      ])
    // Passive: the type octet is 00.
    #expect(HCICommand.leSetScanParameters(ScanParameters(active: false)).parameters[0] == 0x00)
    // 01 | 0C 20 | 02 | 01 enable | 00 keep duplicates
    #expect(HCICommand.leSetScanEnable(true).packet == [0x01, 0x0C, 0x20, 0x02, 0x01, 0x00])
    // 01 | 0C 20 | 02 | 00 disable | 01 filter duplicates
    #expect(HCICommand.leSetScanEnable(false, filterDuplicates: true).packet == [0x01, 0x0C, 0x20, 0x02, 0x00, 0x01])
  }

  @Test func extendedScanCommands() {
    // 01 | 41 20 | 08 | 00 own public | 00 accept all | 01 PHYs = 1M | 01 active | 10 00 interval | 10 00 window
    #expect(
      HCICommand.leSetExtendedScanParameters(ScanParameters()).packet
        == [0x01, 0x41, 0x20, 0x08, 0x00, 0x00, 0x01, 0x01, 0x10, 0x00, 0x10, 0x00])
    // 01 | 42 20 | 06 | 01 enable | 00 duplicates kept | 00 00 duration: until disabled | 00 00 period: none
    #expect(
      HCICommand.leSetExtendedScanEnable(true).packet == [0x01, 0x42, 0x20, 0x06, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00])
  }

  @Test func randomAddressTravelsLeastSignificantOctetFirst() {
    // 01 | 05 20 | 06 | 55 44 33 22 11 C0 (= C0:11:22:33:44:55)
    let address = BluetoothAddress("C0:11:22:33:44:55")!
    #expect(
      HCICommand.leSetRandomAddress(address).packet == [0x01, 0x05, 0x20, 0x06, 0x55, 0x44, 0x33, 0x22, 0x11, 0xC0])
  }

  @Test func legacyAdvertisingCommands() {
    let settings = AdvertisingSettings(connectable: true, interval: 0x00A0, advertisingData: [0x02, 0x01, 0x06])
    // 01 | 06 20 | 0F | A0 00 min 100 ms | A0 00 max | 00 ADV_IND | 00 own public | 00 peer type |
    // 00×6 peer address | 07 channels 37–39 | 00 no filter
    #expect(
      HCICommand.leSetAdvertisingParameters(settings).packet
        == [0x01, 0x06, 0x20, 0x0F, 0xA0, 0x00, 0xA0, 0x00, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0x07, 0x00])
    var nonConnectable = settings
    nonConnectable.connectable = false
    // Advertising_Type 03 = ADV_NONCONN_IND
    #expect(HCICommand.leSetAdvertisingParameters(nonConnectable).parameters[4] == 0x03)
    var scannable = nonConnectable
    scannable.scanResponseData = [0x05, 0x09, 0x53, 0x74, 0x6F, 0x72]  // Complete Local Name "Stor"
    // Advertising_Type 02 = ADV_SCAN_IND: not connectable, but active scanners get the scan response.
    #expect(HCICommand.leSetAdvertisingParameters(scannable).parameters[4] == 0x02)
    // 01 | 08 20 | 20 (32) | 03 length | 02 01 06 flags AD | 28 zero octets of padding
    #expect(
      HCICommand.leSetAdvertisingData([0x02, 0x01, 0x06]).packet
        == [0x01, 0x08, 0x20, 0x20, 0x03, 0x02, 0x01, 0x06] + [UInt8](repeating: 0, count: 28))
    // Scan response: same layout under opcode 0x2009; empty data is length 0 + 31 zeros.
    #expect(HCICommand.leSetScanResponseData([]).packet == [0x01, 0x09, 0x20, 0x20] + [UInt8](repeating: 0, count: 32))
    // 01 | 0A 20 | 01 | 01 enable
    #expect(HCICommand.leSetAdvertisingEnable(true).packet == [0x01, 0x0A, 0x20, 0x01, 0x01])
  }

  @Test func extendedAdvertisingCommandsCarryLegacyPDUs() {
    let settings = AdvertisingSettings(connectable: true, interval: 0x00A0, advertisingData: [0x02, 0x01, 0x06])
    // 01 | 36 20 | 19 (25) | 01 handle | 13 00 legacy ADV_IND (connectable|scannable|legacy) |
    // A0 00 00 min | A0 00 00 max | 07 channels | 00 own public | 00 peer type | 00×6 peer | 00 filter |
    // 7F no TX power preference | 01 primary 1M | 00 max skip | 01 secondary 1M | 00 SID | 00 no notifications
    #expect(
      HCICommand.leSetExtendedAdvertisingParameters(handle: 1, settings).packet
        == [0x01, 0x36, 0x20, 0x19, 0x01, 0x13, 0x00, 0xA0, 0x00, 0x00, 0xA0, 0x00, 0x00, 0x07, 0x00, 0x00]
        + [0, 0, 0, 0, 0, 0] + [0x00, 0x7F, 0x01, 0x00, 0x01, 0x00, 0x00])
    var nonConnectable = settings
    nonConnectable.connectable = false
    // Properties 10 00 = legacy ADV_NONCONN_IND.
    #expect(
      Array(HCICommand.leSetExtendedAdvertisingParameters(handle: 1, nonConnectable).parameters[1...2]) == [0x10, 0x00])
    var scannable = nonConnectable
    scannable.scanResponseData = [0x05, 0x09, 0x53, 0x74, 0x6F, 0x72]
    // Properties 12 00 = legacy ADV_SCAN_IND (scannable|legacy).
    #expect(
      Array(HCICommand.leSetExtendedAdvertisingParameters(handle: 1, scannable).parameters[1...2]) == [0x12, 0x00])
    // 01 | 37 20 | 07 | 01 handle | 03 complete | 01 no fragmenting | 03 length | 02 01 06
    #expect(
      HCICommand.leSetExtendedAdvertisingData(handle: 1, [0x02, 0x01, 0x06]).packet
        == [0x01, 0x37, 0x20, 0x07, 0x01, 0x03, 0x01, 0x03, 0x02, 0x01, 0x06])
    // 01 | 38 20 | 04 | 01 handle | 03 | 01 | 00 empty scan response
    #expect(
      HCICommand.leSetExtendedScanResponseData(handle: 1, []).packet == [
        0x01, 0x38, 0x20, 0x04, 0x01, 0x03, 0x01, 0x00,
      ])
    // 01 | 39 20 | 06 | 01 enable | 01 one set | 01 handle | 00 00 no duration | 00 no event limit
    #expect(
      HCICommand.leSetExtendedAdvertisingEnable(true, handle: 1).packet
        == [0x01, 0x39, 0x20, 0x06, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00])
  }

  @Test func advertisingWithARandomOwnAddress() {
    // A DFU bootloader at the application's address + 1 (docs/protocols/nordic-dfu.md §2.2), advertised as a random address.
    let settings = AdvertisingSettings(
      connectable: true, interval: 0x0028, advertisingData: [0x02, 0x01, 0x06],
      randomAddress: BluetoothAddress("00:AA:01:01:00:02")!)
    #expect(settings.ownAddressType == 0x01)
    // 01 | 06 20 | 0F | 28 00 min 25 ms | 28 00 max | 00 ADV_IND | 01 own address random | 00 | 00×6 | 07 | 00
    #expect(
      HCICommand.leSetAdvertisingParameters(settings).packet
        == [0x01, 0x06, 0x20, 0x0F, 0x28, 0x00, 0x28, 0x00, 0x00, 0x01, 0x00, 0, 0, 0, 0, 0, 0, 0x07, 0x00])
    // extended parameters: octet 10 (after handle, properties, two 3-octet intervals, channels) = 01 random
    #expect(HCICommand.leSetExtendedAdvertisingParameters(handle: 1, settings).parameters[10] == 0x01)
    // 01 | 35 20 | 07 | 01 handle | 02 00 01 01 AA 00 (= 00:AA:01:01:00:02, least significant octet first)
    #expect(
      HCICommand.leSetAdvertisingSetRandomAddress(handle: 1, settings.randomAddress!).packet
        == [0x01, 0x35, 0x20, 0x07, 0x01, 0x02, 0x00, 0x01, 0x01, 0xAA, 0x00])
    #expect(HCIOpcode.leSetAdvertisingSetRandomAddress.description == "LE Set Advertising Set Random Address")
  }

  @Test func supportedCommandsSelectExtendedScanningAndAdvertising() throws {
    var mask = [UInt8](repeating: 0, count: 64)
    #expect(!LocalSupportedCommands(mask: mask).supportsExtendedScan)
    mask[37] = 0x20  // Set Extended Scan Parameters only
    #expect(!LocalSupportedCommands(mask: mask).supportsExtendedScan)
    mask[37] = 0x60  // … and Set Extended Scan Enable (bit 6)
    #expect(LocalSupportedCommands(mask: mask).supportsExtendedScan)
    mask[36] = 0x1C  // bits 2–4 without Set Extended Advertising Enable (bit 5)
    #expect(!LocalSupportedCommands(mask: mask).supportsExtendedAdvertising)
    mask[36] = 0x3C
    #expect(LocalSupportedCommands(mask: mask).supportsExtendedAdvertising)
    // From a Command Complete: status 00 then the 64 octets.
    let parsed = try LocalSupportedCommands(returnParameters: [0x00] + mask)
    #expect(parsed.supportsExtendedScan && parsed.supportsExtendedAdvertising)
    #expect(throws: HCIDecodingError.self) { try LocalSupportedCommands(returnParameters: [0x00] + mask.prefix(40)) }
  }

  @Test func statusNamesForOperators() {
    #expect(HCIStatus.commandDisallowed.description == "Command Disallowed (0x0C)")
    #expect(HCIStatus(rawValue: 0x7E).description == "HCI error (0x7E)")
  }
}
