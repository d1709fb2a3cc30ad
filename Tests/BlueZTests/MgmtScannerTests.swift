import BeaconCore
import Synchronization
import Testing

@testable import BlueZ

/// The mgmt-channel scanner against a fake kernel on a socketpair (`doc/mgmt-api.txt`): power/LE
/// preparation, Start Discovery with LE types, Device Found → reports for our index only, restart when the
/// kernel ends a discovery round, Busy (someone else discovering) tolerated, Stop Discovery on stop.
@Suite(.timeLimit(.minutes(2))) struct MgmtScannerTests {
  static let adapter = Adapter(index: 1, name: "hci1", address: BluetoothAddress(rawValue: 0xBB), isUp: true)

  /// Read Controller Information reply with `settings` as Current_Settings.
  static func info(_ settings: UInt32) -> [UInt8] {
    [0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x09, 0xF1, 0x05, 0xFF, 0xFF, 0x00, 0x00]
      + [UInt8(settings & 0xFF), UInt8(settings >> 8 & 0xFF), 0x00, 0x00, 0x00, 0x00, 0x00]
      + [UInt8](repeating: 0, count: 260)
  }

  /// Device Found on `index`: 11:22:33:44:55:66, LE random, −55 dBm, connectable, AD 02 01 06.
  static func deviceFound(index: UInt16) -> [UInt8] {
    FakeMgmt.event(
      0x0012, index: index,
      [0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x02, 0xC9, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x02, 0x01, 0x06])
  }

  /// A kernel whose adapter has `settings`; Start Discovery answers `startStatus` and is followed by a
  /// Device Found on another index (ignored), then `afterStart` (events), then a Device Found on ours.
  static func kernel(settings: UInt32, startStatus: UInt8 = 0, afterStart: [[UInt8]] = []) -> FakeControllerEndpoint {
    FakeControllerEndpoint { packet, _ in
      let opcode = FakeMgmt.opcode(packet)
      let index = FakeMgmt.index(packet)
      switch opcode {
      case 0x0004: return [FakeMgmt.complete(opcode, index: index, Self.info(settings))]
      case 0x000D: return [FakeMgmt.complete(opcode, index: index, [0x00, 0x02, 0x00, 0x00])]  // LE on, still off
      case 0x0005: return [FakeMgmt.complete(opcode, index: index, [0x01, 0x02, 0x00, 0x00])]  // powered | LE
      case 0x0023 where startStatus != 0:
        return [FakeMgmt.status(opcode, index: index, status: startStatus), Self.deviceFound(index: index)]
      case 0x0023:
        return [FakeMgmt.complete(opcode, index: index, [0x06]), Self.deviceFound(index: 0)] + afterStart
          + [Self.deviceFound(index: index)]
      default: return [FakeMgmt.complete(opcode, index: index, [0x06])]
      }
    }
  }

  /// Runs until `reports` reports arrived, stops, returns them and the commands sent.
  static func scan(_ fake: FakeControllerEndpoint, reports wanted: Int = 1) async throws -> (
    [AdvertisingReport], [[UInt8]]
  ) {
    let socket = try MgmtSocket(adopting: fake.clientDescriptor)
    let (stream, sink) = AsyncStream<AdvertisingReport>.makeStream()
    let scan = Task { try await MgmtScanner(adapter: adapter).run(ScanParameters(), on: socket) { sink.yield($0) } }
    var got: [AdvertisingReport] = []
    for await report in stream {
      got.append(report)
      if got.count == wanted { break }
    }
    scan.cancel()
    try await scan.value
    socket.close()
    return (got, fake.packets)
  }

  @Test func poweredAdapterDiscoversAndStops() async throws {
    let (reports, sent) = try await Self.scan(Self.kernel(settings: 0x0201))  // powered | LE
    #expect(reports.count == 1)
    #expect(reports.first?.address == BluetoothAddress("11:22:33:44:55:66")! && reports.first?.addressType == .random)
    #expect(
      reports.first?.rssi == -55 && reports.first?.kind == .connectable && reports.first?.data == [0x02, 0x01, 0x06])
    #expect(
      sent == [
        [0x04, 0x00, 0x01, 0x00, 0x00, 0x00],  // Read Controller Information, hci1
        [0x23, 0x00, 0x01, 0x00, 0x01, 0x00, 0x06],  // Start Discovery, LE
        [0x24, 0x00, 0x01, 0x00, 0x01, 0x00, 0x06],  // Stop Discovery when stopped
      ])
  }

  @Test func unpoweredAdapterWithoutLEIsPreparedFirst() async throws {
    let (_, sent) = try await Self.scan(Self.kernel(settings: 0x0000))
    #expect(sent.map(FakeMgmt.opcode) == [0x0004, 0x000D, 0x0005, 0x0023, 0x0024])
    #expect(
      sent[1] == [0x0D, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01] && sent[2] == [0x05, 0x00, 0x01, 0x00, 0x01, 0x00, 0x01])
  }

  @Test func discoveryIsRestartedWhenTheKernelEndsARound() async throws {
    // After the first start: Discovering(LE, false) on hci1 → the scanner starts again → second report.
    let ended = FakeMgmt.event(0x0013, index: 1, [0x06, 0x00])
    let (reports, sent) = try await Self.scan(Self.kernel(settings: 0x0201, afterStart: [ended]), reports: 2)
    #expect(reports.count == 2)
    #expect(sent.map(FakeMgmt.opcode).filter { $0 == 0x0023 }.count >= 2)  // every round ends, so ≥ 1 restart
  }

  @Test func busyTakesOverAStaleDiscovery() async throws {
    // The first Start answers Busy (a discovery left behind); Stop then Start succeeds; on stop, Stop again.
    let starts = StartCounter()
    let fake = FakeControllerEndpoint { packet, _ in
      let opcode = FakeMgmt.opcode(packet)
      switch opcode {
      case 0x0004: return [FakeMgmt.complete(opcode, index: 1, Self.info(0x0201))]
      case 0x0023 where starts.next() == 1: return [FakeMgmt.status(opcode, index: 1, status: 0x0A)]
      case 0x0023: return [FakeMgmt.complete(opcode, index: 1, [0x06]), Self.deviceFound(index: 1)]
      default: return [FakeMgmt.complete(opcode, index: 1, [0x06])]
      }
    }
    let (reports, sent) = try await Self.scan(fake)
    #expect(reports.count == 1)
    #expect(sent.map(FakeMgmt.opcode) == [0x0004, 0x0023, 0x0024, 0x0023, 0x0024])
  }

  @Test func busyTwiceMeansListenToTheOtherClientsDiscoveryAndNotStopIt() async throws {
    // Every Start answers Busy (bluetoothd restarted its discovery first): listen, and never stop theirs.
    let (reports, sent) = try await Self.scan(Self.kernel(settings: 0x0201, startStatus: 0x0A))
    #expect(reports.count == 1)
    #expect(sent.map(FakeMgmt.opcode) == [0x0004, 0x0023, 0x0024, 0x0023])
  }

  @Test func permissionDeniedFailsWithTheCapabilityNamed() async throws {
    let fake = Self.kernel(settings: 0x0201, startStatus: 0x14)
    let socket = try MgmtSocket(adopting: fake.clientDescriptor)
    defer { socket.close() }
    await #expect(throws: ControllerCommandError.mgmt(.startDiscovery, .permissionDenied, adapter: "hci1")) {
      try await MgmtScanner(adapter: Self.adapter).run(ScanParameters(), on: socket) { _ in }
    }
    let text = ControllerCommandError.mgmt(.startDiscovery, .permissionDenied, adapter: "hci1").description
    #expect(text.hasSuffix("the management channel needs CAP_NET_ADMIN: " + BluetoothCapabilities.current().hint))
  }
}

/// Counts Start Discovery commands seen by a fake kernel (its closure runs on the fake's thread).
final class StartCounter: Sendable {
  private let count = Mutex(0)
  func next() -> Int {
    count.withLock {
      $0 += 1
      return $0
    }
  }
}

/// A refused restart (the kernel creating a connection interrupts discovery) is retried, not fatal.
@Suite(.timeLimit(.minutes(2))) struct MgmtScannerRestartTests {
  @Test func refusedRestartIsRetried() async throws {
    let starts = StartCounter()
    let fake = FakeControllerEndpoint { packet, _ in
      let opcode = FakeMgmt.opcode(packet)
      switch opcode {
      case 0x0004: return [FakeMgmt.complete(opcode, index: 1, MgmtScannerTests.info(0x0201))]
      case 0x0023:
        switch starts.next() {
        case 1: return [FakeMgmt.complete(opcode, index: 1, [0x06]), FakeMgmt.event(0x0013, index: 1, [0x06, 0x00])]
        case 2: return [FakeMgmt.complete(opcode, index: 1, status: 0x03, [0x06])]  // Failed
        default: return [FakeMgmt.complete(opcode, index: 1, [0x06]), MgmtScannerTests.deviceFound(index: 1)]
        }
      default: return [FakeMgmt.complete(opcode, index: 1, [0x06])]
      }
    }
    let socket = try MgmtSocket(adopting: fake.clientDescriptor)
    let (stream, sink) = AsyncStream<AdvertisingReport>.makeStream()
    let scanner = MgmtScanner(adapter: MgmtScannerTests.adapter, restartRetryDelay: .milliseconds(1))
    let scan = Task { try await scanner.run(ScanParameters(), on: socket) { sink.yield($0) } }
    var iterator = stream.makeAsyncIterator()
    #expect(await iterator.next() != nil)  // reported after the third Start
    scan.cancel()
    try await scan.value
    socket.close()
    #expect(fake.packets.map(FakeMgmt.opcode) == [0x0004, 0x0023, 0x0023, 0x0023, 0x0024])
  }
}
