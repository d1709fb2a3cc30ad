import BeaconCore
import Foundation
import KBeacon
import Synchronization
import TestServers
import Testing

@testable import Simulator

/// The shared write log of simulated devices (the proof that no device was written twice): what two simulations of one site — two
/// gateway processes — made a device accept, line by line, where each one's own counter shows only its own.
@Suite(.timeLimit(.minutes(2))) struct SimulatorWriteLogTests {
  static let environment = KBeaconSession.Environment(
    randomBytes: { n in (0..<n).map { UInt8($0 &* 37 &+ 11) } }, now: { 1_700_000_000 })

  static func temporaryLog() -> SimulatorWriteLog {
    let folder = NSTemporaryDirectory() + "bp-write-log-\(UUID().uuidString.prefix(8))"
    TemporaryFolders.removeAtExit(folder)
    return SimulatorWriteLog(path: folder + "/fleet.writes.jsonl")
  }

  /// A simulation of the demo fleet whose devices' writes go to `log`, as the CLI wires it.
  static func simulation(logging log: SimulatorWriteLog) -> (central: SimulatedCentral, kbeacons: KBeaconSimulation) {
    let (central, kbeacons) = SimulatedCentral.withKBeacons(fleet: DemoFleet.fleet, pace: .unpaced)
    kbeacons.setWriteObserver { write in (try? log.append(write)) != nil }
    return (central, kbeacons)
  }

  /// A state store in a new temporary folder (removed when the test process exits).
  static func temporaryStore(_ label: String) -> SimulatorStateStore {
    let folder = NSTemporaryDirectory() + "bp-\(label)-\(UUID().uuidString.prefix(8))"
    TemporaryFolders.removeAtExit(folder)
    return SimulatorStateStore(stateDirectory: folder, fleetFile: nil)
  }

  /// An authenticated session with the device at `address`, on its factory password.
  static func session(to address: BluetoothAddress, through central: SimulatedCentral) async throws -> KBeaconSession {
    let client = GATTClient(bearer: try await central.connect(to: address, type: .public, timeout: .seconds(1)))
    return try await KBeaconSession.connect(
      client: client, password: .factoryDefault, environment: Self.environment, timeouts: .all(.seconds(2))
    ).0
  }

  static func write(name: String, to address: BluetoothAddress, through central: SimulatedCentral) async throws {
    let session = try await Self.session(to: address, through: central)
    var changes = KBeaconConfiguration()
    changes.common[CommonKey.name] = name
    try await session.write(changes)
    await session.close()
  }

  @Test func twoSimulationsOfOneSiteEachLogTheirWriteOfADevice() async throws {
    let log = Self.temporaryLog()
    let address = BluetoothAddress("DD:34:02:06:D1:02")!
    let (first, second) = (Self.simulation(logging: log).central, Self.simulation(logging: log).central)
    try await Self.write(name: "from-first", to: address, through: first)
    try await Self.write(name: "from-second", to: address, through: second)
    try await Self.write(name: "again-first", to: address, through: first)
    // Each link authenticated (the device set its clock: a line too, without keys), then wrote.
    #expect(try log.writes().map(\.what) == ["auth", "cfg", "auth", "cfg", "auth", "cfg"])
    #expect(try log.writes().filter { $0.what == "auth" }.allSatisfy { $0.keys.isEmpty && $0.state == nil })
    let writes = try log.writes().filter { $0.what == "cfg" }
    #expect(try log.savedStates() == writes)  // what a new link restores from: the writes, not the links
    #expect(try log.counts() == [address.description: 3])
    #expect(writes.map(\.link) == [1, 1, 2])  // each simulation's own links to the device
    #expect(writes.allSatisfy { $0.pid == getpid() && $0.what == "cfg" && $0.keys == ["name"] })
    // One JSON line each; the keys name what was written, and the device's state after the write rides along
    // (the log is written ahead of the state file).
    let text = try String(contentsOfFile: log.path, encoding: .utf8)
    #expect(text.split(separator: "\n").count == 6)
    #expect(writes.map { $0.state?.contains("\"from-first\"") == true } == [true, false, false])
    #expect(writes.map { $0.state?.contains("\"again-first\"") == true } == [false, false, true])
    try log.remove()
  }

  /// A process killed after logging a write and before saving the state file: the next process to link to
  /// the device reads the write back from the log (the device keeps its flash write when a gateway dies),
  /// so a gateway taking over does not write the device again from the older state file.
  @Test func theNewestStateIsTheLogsWhenTheStateFileMissedAWrite() async throws {
    let store = Self.temporaryStore("newest")
    let address = BluetoothAddress("DD:34:02:06:D1:02")!
    let central = Self.simulation(logging: store.writeLog).central
    try await Self.write(name: "logged-only", to: address, through: central)
    // The state file as an earlier save left it: the device before that write.
    var before = try #require(try store.newest(address))
    #expect(before.configuration.common[CommonKey.name] == "logged-only" && before.writes == 1)
    before.writes = 0
    before.configuration.common[CommonKey.name] = "older"
    try store.save([address: before])
    let newest = try #require(try store.newest(address))
    #expect(newest.writes == 1 && newest.configuration.common[CommonKey.name] == "logged-only")
    // Read together with a device never saved (one read, for a link's refresh): the same, the other left out.
    let together = try store.newest([address, BluetoothAddress("DD:34:02:06:D1:03")!])
    #expect(
      Array(together.keys) == [address] && together[address]?.configuration.common[CommonKey.name] == "logged-only")
    // A new process (`loadNewest`, what `SimulatorSessions` restores from) starts from the logged write too.
    let restored = try #require(try store.loadNewest()[address])
    #expect(restored.writes == 1 && restored.configuration.common[CommonKey.name] == "logged-only")
  }

  /// An image activated is logged with the device's state too: a process killed after that line and before
  /// it saved the state file leaves a device the next process finds on the new version — as a real device's
  /// flash keeps it — not one it would update a second time.
  @Test func aFirmwareInstallIsLoggedWithTheStateItLeaves() async throws {
    let store = Self.temporaryStore("firmware")
    let kbeacons = Self.simulation(logging: store.writeLog).kbeacons
    let address = BluetoothAddress("DD:34:02:06:D1:02")!
    try await #require(kbeacons.kbeacon(address)).installFirmware(version: "V9.99")
    let line = try #require(try store.writeLog.writes().last)
    #expect(line.what == "firmware" && line.state?.contains("V9.99") == true)
    #expect(try store.loadNewest()[address]?.configuration.common[CommonKey.ver] == "V9.99")
  }

  /// A reset command is logged as a change the device accepted (not as a `cfg` write, and without a state: the
  /// state file keeps the factory settings it leaves).
  @Test func aResetIsLogged() async throws {
    let store = Self.temporaryStore("reset")
    let (central, kbeacons) = Self.simulation(logging: store.writeLog)
    let address = BluetoothAddress("DD:34:02:06:D1:02")!
    let factory = try #require(await kbeacons.kbeacon(address)?.configuration.common[CommonKey.name])
    let session = try await Self.session(to: address, through: central)
    var changes = KBeaconConfiguration()
    changes.common[CommonKey.name] = "renamed"
    try await session.write(changes)
    try await session.send(.factoryReset)
    await session.close()
    #expect(try store.writeLog.writes().map(\.what) == ["auth", "cfg", "reset"])
    #expect(try store.writeLog.counts() == [address.description: 1])
    #expect(try store.writeLog.writes().last?.state == nil)
    #expect(await kbeacons.kbeacon(address)?.configuration.common[CommonKey.name] == factory)
  }

  /// A write the log cannot record did not happen: the device undoes it and drops the link unanswered, so the
  /// log never undercounts what devices accepted (a `cfg`, an image, a link's authentication).
  @Test func aWriteTheLogCannotRecordIsUndoneAndTheLinkDropped() async throws {
    let (central, kbeacons) = SimulatedCentral.withKBeacons(fleet: DemoFleet.fleet, pace: .unpaced)
    let refused = Mutex<Set<String>>(["cfg", "firmware"])
    kbeacons.setWriteObserver { write in !refused.withLock { $0.contains(write.what) } }
    let address = BluetoothAddress("DD:34:02:06:D1:02")!
    await #expect(throws: (any Error).self) { try await Self.write(name: "not-logged", to: address, through: central) }
    let device = try #require(kbeacons.kbeacon(address))
    let name = await device.configuration.common[CommonKey.name]
    #expect(name != "not-logged" && name != nil)
    #expect(await device.configurationWrites == 0)
    let version = await device.firmwareVersion
    await device.installFirmware(version: "V9.99")
    #expect(await device.firmwareVersion == version && version != "V9.99")
    #expect(await device.configurationWrites == 0)

    refused.withLock { $0 = ["auth"] }
    await #expect(throws: (any Error).self) { try await Self.write(name: "no-auth", to: address, through: central) }
    #expect(await device.configuration.common[CommonKey.name] == name)
    refused.withLock { $0 = [] }
    try await Self.write(name: "logged", to: address, through: central)
    #expect(await device.configuration.common[CommonKey.name] == "logged")
    #expect(await device.configurationWrites == 1)
  }

  @Test func appendsFromManyThreadsAtOnceAreWholeLines() throws {
    let log = Self.temporaryLog()
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      for i in 0..<50 {
        try? log.append(
          SimulatedWrite(link: i, address: "AA:00:00:00:00:0\(thread)", what: "cfg", keys: ["name", "advMode"]))
      }
    }
    let counts = try log.counts()
    #expect(counts.count == 8 && counts.values.allSatisfy { $0 == 50 })
    #expect(try log.writes().allSatisfy { $0.keys == ["advMode", "name"] })
    try log.remove()
  }
}
