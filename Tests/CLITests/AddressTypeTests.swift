import ArgumentParser
import BeaconCore
import Foundation
import JSON
import KBeacon
import Synchronization
import Testing

@testable import BeaconProvisionCLI

/// Commands that connect to one named device reach a KBeacon on a static random address (KKM tags use
/// them, docs/protocols/kbeacon.md §5/§14): without `--address-type` they learn the type from a short scan, with
/// it they connect at once with the type given. The simulated central, like the kernel, only reaches a
/// device with the address type it advertises with (Core v5.4 Vol 6 Part B §1.3).
@Suite("Address types", .isolatedState, .timeLimit(.minutes(2)))
struct AddressTypeTests {
  /// A fleet file with one KBeacon Pro on a static random address (the two top bits set: 0xDD = 0b11011101,
  /// Core v5.4 Vol 6 Part B §1.3.2.1) and one on a public address.
  static let fleetJSON = #"""
    {"version":1,"devices":[
      {"address":"DD:34:02:06:AA:01","addressType":"random","kind":"kbeaconPro","name":"KBPro_random","intervalMs":100,
       "system":{"model":12,"batteryPercent":90,"firmware":"5.22"}},
      {"address":"00:34:02:06:AA:02","kind":"kbeaconPro","name":"KBPro_public","intervalMs":100,
       "system":{"model":12,"batteryPercent":90,"firmware":"5.22"}}]}
    """#

  let random = "DD:34:02:06:AA:01"

  func withFleet(_ body: (String) async throws -> Void) async throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("random-fleet-\(UUID().uuidString).json")
    try Data(Self.fleetJSON.utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    try await body("sim:\(file.path)")
  }

  func run<C: AsyncParsableCommand>(_ arguments: [String], as type: C.Type) async throws -> C {
    try #require(try BeaconProvision.parseAsRoot(arguments) as? C)
  }

  @Test func readAndRingReachAKBeaconOnARandomAddressWithNoOption() async throws {
    try await withFleet { adapter in
      let read = try await run(["read", random, "--adapter", adapter], as: ReadCommand.self)
      let out = Mutex<[String]>([])
      try await read.execute { line in out.withLock { $0.append(line) } }
      let root = try #require(try JSONParser.parse(out.withLock { $0.joined(separator: "\n") }).objectValue)
      #expect(root["configuration"]?.objectValue?["name"] == .string("KBPro_random"))

      let ring = try await run(["ring", random, "--adapter", adapter, "--milliseconds", "100"], as: RingCommand.self)
      try await ring.execute { line in out.withLock { $0.append(line) } }
      #expect(out.withLock { $0.last } == "\(random): ringing for 100 ms")
    }
  }

  @Test func theOverrideSkipsTheScanAndIsTakenAsGiven() async throws {
    try await withFleet { adapter in
      let right = try await run(
        ["read", random, "--adapter", adapter, "--address-type", "random"], as: ReadCommand.self)
      try await right.execute { _ in }
      // As public, the device is never reached: the kernel (and the simulator) time the connect out.
      let wrong = try await run(
        ["reset", random, "--adapter", adapter, "--address-type", "public", "--yes"], as: ResetCommand.self)
      do {
        try await wrong.execute { _ in }
        Issue.record("a random-address device was reached as public")
      } catch let failure as CLIFailure {
        #expect(failure.message.contains("connect timeout"))
        // …and says which type was tried and how to try the other (it was a bare timeout).
        #expect(
          failure.message.contains("connected to as a public address (--address-type public)"), "\(failure.message)")
        #expect(failure.message.contains("give --address-type random"))
      }
    }
  }

  @Test func aPublicDeviceIsStillLearnedAsPublic() async throws {
    try await withFleet { adapter in
      let history = try await run(["history", "00:34:02:06:AA:02", "--adapter", adapter], as: HistoryCommand.self)
      let out = Mutex<[String]>([])
      try await history.execute { line in out.withLock { $0.append(line) } }
      #expect(out.withLock { $0.last }?.hasSuffix("records") == true)
    }
  }

  @Test func everyConnectingCommandTakesTheSameOptionAndGattKeepsRandomAsAnAlias() throws {
    let gatt = try #require(
      try BeaconProvision.parseAsRoot(["gatt", "read", random, "2A00", "--random"]) as? GATTReadCommand)
    #expect(gatt.connection.peer.override == .random)
    let services = try #require(
      try BeaconProvision.parseAsRoot(["gatt", random, "--address-type", "public"]) as? GATTServicesCommand)
    #expect(services.connection.peer.override == .public)
    let ble = try DFUBLECommand.parse(["--device", random, "--package", "x.zip", "--address-type", "random"])
    #expect(ble.peer.override == .random)
    let options = ["--address-type", "random", "--scan-backend", "hci"]
    let peers = [
      try #require(try BeaconProvision.parseAsRoot(["read", random] + options) as? ReadCommand).peer,
      try #require(try BeaconProvision.parseAsRoot(["ring", random] + options) as? RingCommand).peer,
      try #require(try BeaconProvision.parseAsRoot(["reset", random] + options) as? ResetCommand).peer,
      try #require(try BeaconProvision.parseAsRoot(["history", random] + options) as? HistoryCommand).peer,
    ]
    #expect(peers.allSatisfy { $0.override == .random && $0.scanBackend.value == .hci })
    #expect(try #require(try BeaconProvision.parseAsRoot(["read", random]) as? ReadCommand).peer.override == nil)
    #expect(throws: (any Error).self) { try BeaconProvision.parseAsRoot(["read", random, "--address-type", "static"]) }
    #expect(throws: (any Error).self) {
      try BeaconProvision.parseAsRoot(["gatt", random, "--random", "--address-type", "public"])
    }
  }

  /// A central that hears one device on a random address and counts `stopScans` calls.
  final class OneDevice: Central, Sendable {
    let name = "one"
    let stops = Mutex(0)
    let address: BluetoothAddress
    init(_ address: BluetoothAddress) { self.address = address }
    func scan(_ parameters: ScanParameters) -> AsyncThrowingStream<AdvertisingReport, any Error> {
      let report = AdvertisingReport(
        address: address, addressType: .random, kind: .connectable, rssi: -50, data: [0x02, 0x01, 0x06])
      return AsyncThrowingStream { $0.yield(report) }  // then silent, like a radio between PDUs
    }
    func connect(to address: BluetoothAddress, type: AddressType, timeout: Duration) async throws -> any ATTBearer {
      throw LinkError(.connectFailed, peer: address)
    }
    func stopScans() async { stops.withLock { $0 += 1 } }
  }

  @Test func theProbeEndsWithItsScanSwitchedOff() async throws {
    let central = OneDevice(BluetoothAddress(random)!)
    #expect(try await AddressTypeProbe.learn(central.address, on: central, within: .seconds(30)) == .random)
    #expect(central.stops.withLock { $0 } == 1)
  }

  @Test func aDeviceNotHeardIsAClearFailureNamingTheOption() async throws {
    try await withFleet { adapter in
      let central = try await CentralFactory.make(AdapterChoice(argument: adapter))
      let unknown = BluetoothAddress("DD:34:02:06:AA:7F")!
      #expect(try await AddressTypeProbe.learn(BluetoothAddress(random)!, on: central, within: .seconds(30)) == .random)
      #expect(
        try await PeerAddressOptions.parse([]).resolve(
          unknown, on: central, unheard: .public, within: .milliseconds(300)) == .public)
      do {
        _ = try await PeerAddressOptions.parse([]).resolve(unknown, on: central, within: .milliseconds(300))
        Issue.record("an unheard device got an address type")
      } catch let failure as CLIFailure {
        #expect(failure.message.contains("DD:34:02:06:AA:7F was not heard"))
        #expect(failure.message.contains("--address-type public|random"))
      }
    }
  }
}
