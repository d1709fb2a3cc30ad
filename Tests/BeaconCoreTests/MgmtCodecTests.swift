import Testing

@testable import BeaconCore

/// The kernel management protocol (BlueZ `doc/mgmt-api.txt`) byte for byte. Every packet is:
/// code (LE) | controller index (LE) | parameter length (LE) | parameters.
@Suite(.timeLimit(.minutes(1))) struct MgmtCodecTests {
  /// 11:22:33:44:55:66 on the wire.
  static let wireAddress: [UInt8] = [0x66, 0x55, 0x44, 0x33, 0x22, 0x11]

  @Test func commandPackets() {
    // 03 00 Read Controller Index List | FF FF no controller | 00 00 no parameters
    #expect(MgmtCommand.readControllerIndexList.packet == [0x03, 0x00, 0xFF, 0xFF, 0x00, 0x00])
    // 04 00 Read Controller Information | 00 00 hci0 | 00 00
    #expect(MgmtCommand.readControllerInfo(index: 0).packet == [0x04, 0x00, 0x00, 0x00, 0x00, 0x00])
    // 05 00 Set Powered | 01 00 hci1 | 01 00 | 01 on
    #expect(MgmtCommand.setPowered(true, index: 1).packet == [0x05, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01])
    // 0D 00 Set Low Energy | 00 00 | 01 00 | 01 on
    #expect(MgmtCommand.setLowEnergy(true, index: 0).packet == [0x0D, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01])
    // 23 00 Start Discovery | 00 00 | 01 00 | 06 LE public|random
    #expect(MgmtCommand.startDiscovery(index: 0).packet == [0x23, 0x00, 0x00, 0x00, 0x01, 0x00, 0x06])
    // 24 00 Stop Discovery | 02 01 index 258 | 01 00 | 06
    #expect(MgmtCommand.stopDiscovery(index: 0x0102).packet == [0x24, 0x00, 0x02, 0x01, 0x01, 0x00, 0x06])
    #expect(MgmtDiscoveryTypes.le.rawValue == 0x06)
    // 14 00 Disconnect | 01 00 hci1 | 07 00 | 00 00 00 01 AA 00 (= 00:AA:01:00:00:00) | 01 LE public
    #expect(
      MgmtCommand.disconnect(BluetoothAddress("00:AA:01:00:00:00")!, type: .public, index: 1).packet
        == [0x14, 0x00, 0x01, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x01, 0xAA, 0x00, 0x01])
    #expect(
      MgmtCommand.disconnect(BluetoothAddress("C0:00:00:00:00:01")!, type: .random, index: 0).parameters.last == 0x02)
  }

  @Test func addAdvertisingPacket() {
    // 3E 00 Add Advertising | 01 00 hci1 | 0E 00 (14) | 01 instance | 01 00 00 00 flags: connectable |
    // 00 00 duration | 00 00 timeout | 03 AD length | 00 scan response length | 02 01 06
    let command = MgmtCommand.addAdvertising(
      instance: 1, connectable: true, advertisingData: [0x02, 0x01, 0x06], scanResponseData: [], index: 1)
    #expect(
      command.packet
        == [
          0x3E, 0x00, 0x01, 0x00, 0x0E, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x02,
          0x01, 0x06,
        ])
    // 3F 00 Remove Advertising | 01 00 | 01 00 | 00 all instances
    #expect(MgmtCommand.removeAdvertising(instance: 0, index: 1).packet == [0x3F, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00])
  }

  @Test func commandCompleteAndStatusEvents() throws {
    // 01 00 Command Complete | 00 00 hci0 | 04 00 | 23 00 Start Discovery | 00 success | 06 return: types
    let complete = try MgmtEvent(packet: [0x01, 0x00, 0x00, 0x00, 0x04, 0x00, 0x23, 0x00, 0x00, 0x06])
    #expect(complete.index == 0)
    #expect(complete.payload == .commandComplete(opcode: .startDiscovery, status: .success, returnParameters: [0x06]))
    // 02 00 Command Status | 00 00 | 03 00 | 23 00 | 0A Busy
    let status = try MgmtEvent(packet: [0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x23, 0x00, 0x0A])
    #expect(status.payload == .commandStatus(opcode: .startDiscovery, status: .busy))
    #expect(MgmtStatus.busy.description == "Busy (0x0A)")
    #expect(MgmtStatus.permissionDenied.description == "Permission Denied (0x14)")
    #expect(MgmtStatus(rawValue: 0x40).description == "mgmt error (0x40)")
  }

  @Test func deviceFoundBecomesAnAdvertisingReport() throws {
    let packet: [UInt8] =
      [0x12, 0x00, 0x00, 0x00, 0x11, 0x00]  // Device Found | hci0 | 17 octets
      + Self.wireAddress + [0x01, 0xC4]  // address, LE public, RSSI −60
      + [0x04, 0x00, 0x00, 0x00]  // flags: Not Connectable
      + [0x03, 0x00, 0x02, 0x01, 0x06]  // 3 octets of AD: flags
    guard case .deviceFound(let found) = try MgmtEvent(packet: packet).payload else {
      Issue.record("not a Device Found")
      return
    }
    #expect(found.flags == .notConnectable)
    let now = ContinuousClock.now
    let report = try #require(found.advertisingReport(at: now))
    #expect(report.address == BluetoothAddress("11:22:33:44:55:66")! && report.addressType == .public)
    #expect(report.kind == .nonConnectable && report.rssi == -60 && report.data == [0x02, 0x01, 0x06])
    #expect(report.timestamp == now)
    // The same device, LE random and connectable (flags 0).
    var random = try MgmtDeviceFound(Array(packet[6...]))
    random.addressType = 2
    random.flags = []
    #expect(random.advertisingReport(at: now)?.addressType == .random)
    #expect(random.advertisingReport(at: now)?.kind == .connectable)
    // BR/EDR (address type 0) is not an LE report.
    random.addressType = 0
    #expect(random.advertisingReport(at: now) == nil)
  }

  @Test func discoveringAndSettingsEvents() throws {
    // 13 00 Discovering | 00 00 | 02 00 | 06 LE | 01 started
    #expect(
      try MgmtEvent(packet: [0x13, 0x00, 0x00, 0x00, 0x02, 0x00, 0x06, 0x01]).payload
        == .discovering(types: .le, active: true))
    // 06 00 New Settings | 01 00 | 04 00 | 01 02 00 00 = powered | LE (bit 9)
    #expect(
      try MgmtEvent(packet: [0x06, 0x00, 0x01, 0x00, 0x04, 0x00, 0x01, 0x02, 0x00, 0x00]).payload
        == .newSettings([.powered, .lowEnergy]))
    #expect(try MgmtEvent(packet: [0x05, 0x00, 0x01, 0x00, 0x00, 0x00]).payload == .indexRemoved)
    #expect(
      try MgmtEvent(packet: [0x0B, 0x00, 0x00, 0x00, 0x01, 0x00, 0x7F]).payload
        == .other(code: 0x0B, parameters: [0x7F]))
  }

  @Test func controllerInfoReply() throws {
    var name = Array("btvirt-test".utf8)
    name += [UInt8](repeating: 0, count: 249 - name.count)
    let reply: [UInt8] =
      Self.wireAddress + [0x09]  // address, Bluetooth 5.0
      + [0xF1, 0x05]  // manufacturer 0x05F1
      + [0xFF, 0xFE, 0x01, 0x00]  // supported settings
      + [0x01, 0x02, 0x00, 0x00]  // current: powered | LE
      + [0x00, 0x00, 0x00] + name + Array("bt".utf8) + [UInt8](repeating: 0, count: 9)
    let info = try MgmtControllerInfo(returnParameters: reply)
    #expect(
      info.address == BluetoothAddress("11:22:33:44:55:66")! && info.bluetoothVersion == 9
        && info.manufacturer == 0x05F1)
    #expect(info.currentSettings == [.powered, .lowEnergy] && info.supportedSettings.contains(.advertising))
    #expect(info.name == "btvirt-test" && info.shortName == "bt")
    #expect(throws: HCIDecodingError.self) { try MgmtControllerInfo(returnParameters: Array(reply.prefix(279))) }
    // Index list: 02 00 two controllers | 00 00 | 01 00
    #expect(try MgmtControllerIndexList(returnParameters: [0x02, 0x00, 0x00, 0x00, 0x01, 0x00]).indexes == [0, 1])
    #expect(throws: HCIDecodingError.self) { try MgmtControllerIndexList(returnParameters: [0x03, 0x00, 0x00, 0x00]) }
    // Set Powered reply: Current_Settings 01 00 00 00.
    #expect(try MgmtSettings(returnParameters: [0x01, 0x00, 0x00, 0x00]) == .powered)
  }

  @Test func malformedEventsThrowTypedErrors() {
    // Header shorter than 6 octets.
    #expect(throws: HCIDecodingError.self) { try MgmtEvent(packet: [0x12, 0x00, 0x00]) }
    // Header length 5, 2 octets present.
    #expect(throws: HCIDecodingError.lengthMismatch("mgmt event 0x01", declared: 5, actual: 2)) {
      try MgmtEvent(packet: [0x01, 0x00, 0x00, 0x00, 0x05, 0x00, 0x23, 0x00])
    }
    // Device Found announcing 10 AD octets but carrying 3.
    let lying: [UInt8] = Self.wireAddress + [0x01, 0xC4, 0, 0, 0, 0, 0x0A, 0x00, 0x02, 0x01, 0x06]
    #expect(throws: HCIDecodingError.self) {
      try MgmtEvent(packet: [0x12, 0x00, 0x00, 0x00, UInt8(lying.count), 0x00] + lying)
    }
    // Command Complete without a status.
    #expect(throws: HCIDecodingError.self) { try MgmtEvent(packet: [0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x23, 0x00]) }
  }
}
