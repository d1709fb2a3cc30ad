import BeaconCore
import Glibc
import Testing

@testable import BlueZ

/// Pure decisions of the live layer: scan backend selection, advertiser command sequences and limits,
/// per-adapter connect serialization, and the errors seen on a machine without Bluetooth.
@Suite(.timeLimit(.minutes(2))) struct LiveLayerLogicTests {
  struct ProbeFailure: Error, Equatable {}

  @Test func backendSelection() throws {
    #expect(try ScanBackend.auto.resolve(mgmtProbe: nil) == .mgmt)
    #expect(try ScanBackend.auto.resolve(mgmtProbe: ProbeFailure()) == .hci)
    #expect(try ScanBackend.hci.resolve(mgmtProbe: nil) == .hci)
    #expect(try ScanBackend.mgmt.resolve(mgmtProbe: nil) == .mgmt)
    #expect(throws: ProbeFailure()) { try ScanBackend.mgmt.resolve(mgmtProbe: ProbeFailure()) }
    #expect(ScanBackend(rawValue: "hci") == .hci && ScanBackend(rawValue: "bluez") == nil)
  }

  @Test func advertiserCommandSequences() {
    let settings = AdvertisingSettings(connectable: false, interval: 0x0100, advertisingData: [0x02, 0x01, 0x04])
    #expect(
      HCIAdvertiser.startCommands(settings, extended: false).map(\.opcode)
        == [.leSetAdvertisingParameters, .leSetAdvertisingData, .leSetScanResponseData, .leSetAdvertisingEnable])
    let extended = HCIAdvertiser.startCommands(settings, extended: true)
    #expect(
      extended.map(\.opcode)
        == [
          .leSetExtendedAdvertisingParameters, .leSetExtendedAdvertisingData, .leSetExtendedScanResponseData,
          .leSetExtendedAdvertisingEnable,
        ])
    #expect(extended.allSatisfy { $0.parameters.first == HCIAdvertiser.extendedHandle })
    #expect(HCIAdvertiser.stopCommand(extended: false) == .leSetAdvertisingEnable(false))
    #expect(HCIAdvertiser.stopCommand(extended: true) == .leSetExtendedAdvertisingEnable(false, handle: 1))
  }

  @Test func advertiserRejectsWhatALegacyPDUCannotCarry() {
    let tooLong = AdvertisingSettings(connectable: true, advertisingData: [UInt8](repeating: 0, count: 32))
    #expect(throws: ControllerCommandError.self) { try HCIAdvertiser.validate(tooLong) }
    let tooFast = AdvertisingSettings(connectable: true, interval: 0x0010, advertisingData: [])
    #expect(throws: ControllerCommandError.self) { try HCIAdvertiser.validate(tooFast) }
    #expect(throws: Never.self) {
      try HCIAdvertiser.validate(
        AdvertisingSettings(connectable: true, advertisingData: [UInt8](repeating: 0, count: 31)))
    }
  }

  /// Counts how many bodies run at once.
  actor Overlap {
    var running = 0
    var maximum = 0
    var order: [Int] = []
    func enter(_ id: Int) {
      running += 1
      maximum = max(maximum, running)
      order.append(id)
    }
    func leave() { running -= 1 }
  }

  @Test func connectsAreSerializedPerAdapter() async throws {
    let locks = ConnectLocks()
    let overlap = Overlap()
    try await withThrowingTaskGroup(of: Void.self) { group in
      for id in 0..<8 {
        group.addTask { () async throws -> Void in
          try await locks.withLock("hci0") { () async -> Void in
            await overlap.enter(id)
            for _ in 0..<20 { await Task.yield() }
            await overlap.leave()
          }
        }
      }
      try await group.waitForAll()
    }
    #expect(await overlap.maximum == 1)
    #expect(await overlap.order.count == 8)
  }

  @Test func differentAdaptersDoNotWaitForEachOther() async throws {
    let locks = ConnectLocks()
    // hci0's body waits until hci1's body has run: it would deadlock if adapters shared one lock.
    let (signal, fire) = AsyncStream<Void>.makeStream()
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { try await locks.withLock("hci0") { for await _ in signal { break } } }
      group.addTask { try await locks.withLock("hci1") { _ = fire.yield() } }
      try await group.waitForAll()
    }
  }

  @Test func noBluetoothGivesOneClearLine() async {
    // Build machines have no AF_BLUETOOTH: scanning and connecting must fail with the EAFNOSUPPORT line.
    let central = BlueZCentral(adapter: "hci0", scanBackend: .hci)
    do {
      for try await _ in central.scan(ScanParameters()) {}
      Issue.record("a scan on a machine without Bluetooth must fail")
    } catch let error as BlueZError {
      #expect(error.errno == EAFNOSUPPORT || error.errno == ENODEV)
      #expect(error.description.contains("Bluetooth"))
    } catch {
      // A machine with Bluetooth but no hci0 (NoAdapterError or ENODEV) is also acceptable.
      #expect(error is NoAdapterError || error is ControllerCommandError)
    }
  }

  @Test func connectErrorsSplitPermissionFromPeerFailures() {
    let peer = BluetoothAddress("11:22:33:44:55:66")!
    #expect((L2CAPConnector.failure(EPERM, peer: peer) as? BlueZError)?.errno == EPERM)
    #expect((L2CAPConnector.failure(ETIMEDOUT, peer: peer) as? LinkError)?.code == .connectTimeout)
    #expect((L2CAPConnector.failure(ECONNREFUSED, peer: peer) as? LinkError)?.code == .connectFailed)
    #expect((L2CAPConnector.failure(EHOSTDOWN, peer: peer) as? LinkError)?.peer == peer)
  }
}
