import BeaconCore
import Glibc
import Testing

@testable import BlueZ

/// The raw-HCI scanner and `HCISocket` against a fake controller on a socketpair: the exact command
/// sequence (legacy vs extended, docs/protocols/linux-ble.md §4 item 2), reports out, the disable on stop, and errors.
@Suite(.timeLimit(.minutes(2))) struct HCIScannerTests {
  static let adapter = Adapter(index: 0, name: "hci0", address: BluetoothAddress(rawValue: 0xAA), isUp: true)

  /// A controller answering every command with success; Read Local Supported Commands returns `mask`;
  /// after a scan enable it sends `advertisingEvent`. `refuse` maps opcodes to a failure status.
  static func controller(
    mask: [UInt8], advertisingEvent: [UInt8], refuse: [UInt16: UInt8] = [:]
  ) -> FakeControllerEndpoint {
    FakeControllerEndpoint { packet, _ in
      let opcode = FakeHCI.opcode(packet)
      if let status = refuse[opcode] { return [FakeHCI.commandComplete(opcode, [status])] }
      if opcode == HCIOpcode.readLocalSupportedCommands.rawValue {
        return [FakeHCI.commandComplete(opcode, [0x00] + mask)]
      }
      var replies = [FakeHCI.commandComplete(opcode, [0x00])]
      let enabling = packet.count > 4 && packet[4] == 0x01
      if enabling
        && (opcode == HCIOpcode.leSetScanEnable.rawValue || opcode == HCIOpcode.leSetExtendedScanEnable.rawValue)
      {
        replies.append([0x04, 0x3E, 0x02, 0x7F, 0x00])  // an unknown LE subevent first: ignored
        replies.append(advertisingEvent)
      }
      return replies
    }
  }

  /// Runs the scanner until its first report, then stops it and returns the report and the commands sent.
  static func scanOnce(_ fake: FakeControllerEndpoint, _ parameters: ScanParameters) async throws
    -> (AdvertisingReport?, [[UInt8]])
  {
    let socket = try HCISocket(adopting: fake.clientDescriptor, name: "hci0")
    let (reports, sink) = AsyncStream<AdvertisingReport>.makeStream()
    let scan = Task { try await HCIScanner(adapter: adapter).run(parameters, on: socket) { sink.yield($0) } }
    var iterator = reports.makeAsyncIterator()
    let first = await iterator.next()
    scan.cancel()
    try await scan.value
    socket.close()
    return (first, fake.packets)
  }

  /// LE Advertising Report: 1 report, ADV_NONCONN_IND, random, 11:22:33:44:55:66, AD 02 01 04, −70 dBm.
  static let legacyReport: [UInt8] =
    [0x04, 0x3E, 0x0F, 0x02, 0x01, 0x03, 0x01, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x03, 0x02, 0x01, 0x04, 0xBA]

  @Test func legacyControllerGetsLegacyCommandsAndADisableOnStop() async throws {
    let fake = Self.controller(mask: [UInt8](repeating: 0, count: 64), advertisingEvent: Self.legacyReport)
    let (report, sent) = try await Self.scanOnce(fake, ScanParameters(active: false, interval: 0x20, window: 0x10))
    #expect(report?.address == BluetoothAddress("11:22:33:44:55:66")! && report?.kind == .nonConnectable)
    #expect(report?.rssi == -70 && report?.data == [0x02, 0x01, 0x04] && report?.addressType == .random)
    #expect(
      sent == [
        [0x01, 0x02, 0x10, 0x00],  // Read Local Supported Commands
        [0x01, 0x0C, 0x20, 0x02, 0x00, 0x00],  // LE Set Scan Enable: off (clear a stale scan)
        [0x01, 0x0B, 0x20, 0x07, 0x00, 0x20, 0x00, 0x10, 0x00, 0x00, 0x00],  // parameters: passive
        [0x01, 0x0C, 0x20, 0x02, 0x01, 0x00],  // enable
        [0x01, 0x0C, 0x20, 0x02, 0x00, 0x00],  // disable when stopped
      ])
  }

  @Test func extendedControllerGetsExtendedCommands() async throws {
    var mask = [UInt8](repeating: 0, count: 64)
    mask[37] = 0x60
    // LE Extended Advertising Report: legacy ADV_IND (0x0013), public, −50 dBm, AD 02 01 06.
    let event: [UInt8] =
      [0x04, 0x3E, 0x1D, 0x0D, 0x01, 0x13, 0x00, 0x00, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11]
      + [0x01, 0x00, 0xFF, 0x7F, 0xCE, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0x03, 0x02, 0x01, 0x06]
    let fake = Self.controller(mask: mask, advertisingEvent: event)
    let (report, sent) = try await Self.scanOnce(fake, ScanParameters())
    #expect(report?.kind == .connectable && report?.rssi == -50 && report?.addressType == .public)
    #expect(sent.map(FakeHCI.opcode) == [0x1002, 0x2042, 0x2041, 0x2042, 0x2042])
    #expect(sent[3] == [0x01, 0x42, 0x20, 0x06, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00])
    #expect(sent.last == [0x01, 0x42, 0x20, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00])
  }

  @Test func commandDisallowedOnTheDisablePathIsIgnored() async throws {
    // The controller refuses every LE Set Scan Enable(off) with Command Disallowed (0x0C).
    let fake = FakeControllerEndpoint { packet, _ in
      let opcode = FakeHCI.opcode(packet)
      if opcode == 0x1002 { return [FakeHCI.commandComplete(opcode, [0x00] + [UInt8](repeating: 0, count: 64))] }
      if opcode == 0x200C && packet[4] == 0x00 { return [FakeHCI.commandComplete(opcode, [0x0C])] }
      return [FakeHCI.commandComplete(opcode, [0x00])] + (opcode == 0x200C ? [Self.legacyReport] : [])
    }
    let (report, _) = try await Self.scanOnce(fake, ScanParameters())
    #expect(report != nil)
  }

  @Test func commandDisallowedOnScanParametersFailsNamingTheCause() async throws {
    let fake = Self.controller(
      mask: [UInt8](repeating: 0, count: 64), advertisingEvent: Self.legacyReport, refuse: [0x200B: 0x0C])
    let socket = try HCISocket(adopting: fake.clientDescriptor, name: "hci0")
    defer { socket.close() }
    await #expect(throws: ControllerCommandError.hci(.leSetScanParameters, .commandDisallowed, adapter: "hci0")) {
      try await HCIScanner(adapter: Self.adapter).run(ScanParameters(), on: socket) { _ in }
    }
    let text = ControllerCommandError.hci(.leSetScanParameters, .commandDisallowed, adapter: "hci0").description
    #expect(
      text.contains("Command Disallowed (0x0C)") && text.contains("bluetoothd") && text.contains("--scan-backend mgmt"))
  }

  @Test func unansweredCommandTimesOut() async throws {
    let fake = FakeControllerEndpoint { _, _ in [] }
    let socket = try HCISocket(adopting: fake.clientDescriptor, name: "hci0")
    defer { socket.close() }
    await #expect(throws: ControllerCommandError.timeout(command: "Reset", adapter: "hci0")) {
      try await socket.send(.reset, timeout: .milliseconds(30))
    }
  }

  @Test func malformedEventsAreSkippedAndClosingFailsWaiters() async throws {
    let fake = FakeControllerEndpoint { packet, _ in
      // A truncated Command Complete, then the real one.
      [[0x04, 0x0E, 0x01, 0x01], FakeHCI.commandComplete(FakeHCI.opcode(packet), [0x00])]
    }
    let socket = try HCISocket(adopting: fake.clientDescriptor, name: "hci0")
    #expect(try await socket.send(.reset).status == .success)
    socket.close()
    await #expect(throws: BlueZError.self) { try await socket.send(.reset) }
  }
}
