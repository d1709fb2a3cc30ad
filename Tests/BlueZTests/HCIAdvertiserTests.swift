import BeaconCore
import Testing

@testable import BlueZ

/// `HCIAdvertiser` against a fake controller: legacy or extended commands as the controller's supported
/// commands say, the exact bytes, and "already off" answers on the disable path ignored.
@Suite(.timeLimit(.minutes(2))) struct HCIAdvertiserTests {
  static let adapter = Adapter(index: 1, name: "hci1", address: BluetoothAddress(rawValue: 0xBB), isUp: true)
  static let settings = AdvertisingSettings(
    connectable: true, interval: 0x00A0, advertisingData: [0x02, 0x01, 0x06],
    scanResponseData: [0x03, 0x08, 0x62, 0x70])

  /// Success for everything except the disable command, which answers `disableStatus`.
  static func controller(mask: [UInt8], disableStatus: UInt8) -> FakeControllerEndpoint {
    FakeControllerEndpoint { packet, _ in
      let opcode = FakeHCI.opcode(packet)
      if opcode == 0x1002 { return [FakeHCI.commandComplete(opcode, [0x00] + mask)] }
      let disabling = (opcode == 0x200A || opcode == 0x2039) && packet[4] == 0x00
      return [FakeHCI.commandComplete(opcode, [disabling ? disableStatus : 0x00])]
    }
  }

  @Test func extendedControllerAndAnUnknownSetOnDisable() async throws {
    var mask = [UInt8](repeating: 0, count: 64)
    mask[36] = 0x3C  // Set Extended Advertising Parameters/Data/Scan Response Data/Enable
    let fake = Self.controller(mask: mask, disableStatus: 0x42)  // Unknown Advertising Identifier
    let socket = try HCISocket(adopting: fake.clientDescriptor, name: "hci1")
    defer { socket.close() }
    let advertiser = try await HCIAdvertiser(adapter: Self.adapter, socket: socket)
    #expect(advertiser.usesExtendedCommands)
    try await advertiser.start(Self.settings)
    try await advertiser.stop()
    let sent = fake.packets
    #expect(sent.map(FakeHCI.opcode) == [0x1002, 0x2039, 0x2036, 0x2037, 0x2038, 0x2039, 0x2039])
    // 01 | 38 20 | 08 | 01 handle | 03 complete | 01 no fragmenting | 04 length | 03 08 "bp"
    #expect(sent[4] == [0x01, 0x38, 0x20, 0x08, 0x01, 0x03, 0x01, 0x04, 0x03, 0x08, 0x62, 0x70])
    #expect(sent[5] == [0x01, 0x39, 0x20, 0x06, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00])  // enable set 1
  }

  @Test func legacyControllerAndCommandDisallowedOnDisable() async throws {
    let fake = Self.controller(mask: [UInt8](repeating: 0, count: 64), disableStatus: 0x0C)
    let socket = try HCISocket(adopting: fake.clientDescriptor, name: "hci1")
    defer { socket.close() }
    let advertiser = try await HCIAdvertiser(adapter: Self.adapter, socket: socket)
    #expect(!advertiser.usesExtendedCommands)
    try await advertiser.start(Self.settings)
    #expect(fake.packets.map(FakeHCI.opcode) == [0x1002, 0x200A, 0x2006, 0x2008, 0x2009, 0x200A])
    #expect(fake.packets.last == [0x01, 0x0A, 0x20, 0x01, 0x01])
  }

  @Test func aRandomOwnAddressIsProgrammedBeforeTheParametersOrAfterTheSetExists() {
    var settings = Self.settings
    settings.randomAddress = BluetoothAddress("00:AA:01:01:00:02")!
    // legacy: LE Set Random Address (0x2005) first, while advertising is off, then the usual four
    let legacy = HCIAdvertiser.startCommands(settings, extended: false)
    #expect(legacy.map(\.opcode.rawValue) == [0x2005, 0x2006, 0x2008, 0x2009, 0x200A])
    #expect(legacy[0].parameters == [0x02, 0x00, 0x01, 0x01, 0xAA, 0x00])
    #expect(legacy[1].parameters[5] == 0x01)  // own address type random
    // extended: the set's parameters (creating it), then its random address (0x2035), data, enable
    let extended = HCIAdvertiser.startCommands(settings, extended: true)
    #expect(extended.map(\.opcode.rawValue) == [0x2036, 0x2035, 0x2037, 0x2038, 0x2039])
    #expect(extended[1].parameters == [0x01, 0x02, 0x00, 0x01, 0x01, 0xAA, 0x00])
    // a public own address sends no address command
    #expect(
      HCIAdvertiser.startCommands(Self.settings, extended: false).map(\.opcode.rawValue) == [
        0x2006, 0x2008, 0x2009, 0x200A,
      ])
  }

  @Test func otherFailuresOnDisableAreReported() async throws {
    let fake = Self.controller(mask: [UInt8](repeating: 0, count: 64), disableStatus: 0x12)  // invalid parameters
    let socket = try HCISocket(adopting: fake.clientDescriptor, name: "hci1")
    defer { socket.close() }
    let advertiser = try await HCIAdvertiser(adapter: Self.adapter, socket: socket)
    await #expect(throws: ControllerCommandError.hci(.leSetAdvertisingEnable, .invalidParameters, adapter: "hci1")) {
      try await advertiser.stop()
    }
  }
}
