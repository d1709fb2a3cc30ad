import BeaconCore
import BlueZ
import Foundation
import JSON
import KBeacon

/// What a simulated KBeacon keeps across runs: its configuration and its password (the device's own
/// memory — this file is the simulator's flash, not a log or report of the tool).
public struct SimulatedKBeaconSnapshot: Sendable, Hashable {
  public var configuration: KBeaconConfiguration
  public var password: String
  /// `cfg` messages applied over the device's simulated life.
  public var writes: Int = 0
  /// The GATT table's layout revision (`SimulatedKBeacon.databaseRevision`); 0, as built, is not written.
  public var databaseRevision: Int = 0
  /// The device's stay in its DFU bootloader, while it lasts (`SimulatedBootloaderRecord`).
  public var bootloader: SimulatedBootloaderRecord? = nil
}

/// Keeps a simulated fleet's device state between runs, so a second `apply` really finds the devices as
/// the first left them: one JSON file per fleet under `<state dir>/simulator/`. `reset` forgets it, which
/// brings back the fleet as built in (or as its fleet file describes it).
///
/// File: `{"version": 1, "devices": {"AA:BB:…": {"generation": "pro", "password": "…", "configuration": {…device JSON…}}},
/// "textDevices": {"AA:BB:…": {"name": "…", "intervalMs": 500, "txPower": 0, "writes": 1}}}` — `textDevices`
/// (the simulated AT devices' settings) only when there are any, so older files read unchanged; likewise a
/// device's `"databaseRevision": n` (its GATT table's layout, `SimulatedKBeacon.databaseRevision`) only when not 0,
/// and its `"bootloader": {…}` (`SimulatedBootloaderRecord.json`) only while it is in its DFU bootloader.
public struct SimulatorStateStore: Sendable {
  public let path: String

  /// The store for the built-in fleet (`fleetFile` nil) or a fleet file, in `stateDirectory`.
  public init(stateDirectory: String, fleetFile: String?) {
    let key: String
    if let fleetFile {
      let absolute = URL(fileURLWithPath: fleetFile).standardizedFileURL.path
      let hash = absolute.utf8.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
      key = "fleet-" + String(hash, radix: 16)
    } else {
      key = "builtin"
    }
    path = stateDirectory + "/simulator/" + key + ".json"
  }

  /// The saved devices; empty when there is no file. A damaged file is reported, never half-used.
  public func load() throws -> [BluetoothAddress: SimulatedKBeaconSnapshot] {
    guard let data = FileManager.default.contents(atPath: path) else { return [:] }
    let root: JSONValue
    do { root = try JSONParser.parse(Array(data)) } catch {
      throw StateError("\(path) is damaged (\(error)); `beacon-provision sim reset` starts the simulated fleet afresh")
    }
    guard root.objectValue?["version"]?.intValue == 1, let devices = root.objectValue?["devices"]?.objectValue else {
      throw StateError("\(path) is not a simulator state file of version 1; `beacon-provision sim reset` starts afresh")
    }
    var result: [BluetoothAddress: SimulatedKBeaconSnapshot] = [:]
    for (key, value) in devices {
      guard let address = BluetoothAddress(key), let snapshot = Self.snapshot(value)
      else { throw StateError("\(path): the entry for \(key) is damaged; `beacon-provision sim reset` starts afresh") }
      result[address] = snapshot
    }
    return result
  }

  /// A device entry (`entry(_:)`) read back; nil when it is damaged.
  static func snapshot(_ value: JSONValue) -> SimulatedKBeaconSnapshot? {
    guard let entry = value.objectValue,
      let generation = entry["generation"]?.stringValue.flatMap(ProtocolGeneration.init(rawValue:)),
      let password = entry["password"]?.stringValue, let json = entry["configuration"]?.objectValue,
      let configuration = try? KBeaconConfiguration(deviceJSON: json, generation: generation)
    else { return nil }
    var bootloader: SimulatedBootloaderRecord? = nil
    if let value = entry["bootloader"] {
      guard let record = SimulatedBootloaderRecord(json: value) else { return nil }
      bootloader = record
    }
    return SimulatedKBeaconSnapshot(
      configuration: configuration, password: password, writes: entry["writes"]?.intValue ?? 0,
      databaseRevision: entry["databaseRevision"]?.intValue ?? 0, bootloader: bootloader)
  }

  /// The device at `address` as it was last written: the state file's entry, or the write log's last entry
  /// for it when that one is newer (more writes) — a process killed after logging a write and before saving
  /// the state file (see `SimulatedWrite.state`).
  public func newest(_ address: BluetoothAddress) throws -> SimulatedKBeaconSnapshot? { try newest([address])[address] }

  /// `newest(_:)` for each of `addresses`, reading the state file and the log once: one consistent look at the
  /// devices a link reads back together (`KBeaconSimulation.refresh(_:)`). Devices never saved are left out.
  public func newest(_ addresses: [BluetoothAddress]) throws -> [BluetoothAddress: SimulatedKBeaconSnapshot] {
    let names = Set(addresses.map(\.description))
    let saved = try load().filter { names.contains($0.key.description) }
    var lastLogged: [String: SimulatedWrite] = [:]
    for write in try writeLog.savedStates() where names.contains(write.address) { lastLogged[write.address] = write }
    var result = saved
    for (name, write) in lastLogged {
      guard let address = BluetoothAddress(name), let logged = Self.snapshot(loggedBy: write) else { continue }
      if logged.writes > saved[address]?.writes ?? -1 { result[address] = logged }
    }
    return result
  }

  /// The device's state a write-log line carries (`SimulatedWrite.state`), nil when it carries none or it
  /// does not parse.
  static func snapshot(loggedBy write: SimulatedWrite) -> SimulatedKBeaconSnapshot? {
    write.state.flatMap { try? JSONParser.parse(Array($0.utf8)) }.flatMap(Self.snapshot)
  }

  /// Every saved device as it was last written (`newest(_:)` for all of them, reading the log once): what a
  /// new process starts from. `load()` alone missed a write logged by a process killed before it saved the
  /// state file, so the device "forgot" a write it had acknowledged and `--resume` wrote it again (the fault
  /// matrix's `kill -9` of `apply` found it: two `cfg` in the log for one device).
  public func loadNewest() throws -> [BluetoothAddress: SimulatedKBeaconSnapshot] {
    var devices = try load()
    for write in try writeLog.savedStates() {
      guard let address = BluetoothAddress(write.address), let logged = Self.snapshot(loggedBy: write) else { continue }
      if logged.writes > devices[address]?.writes ?? -1 { devices[address] = logged }
    }
    return devices
  }

  /// The saved settings of the simulated AT-command devices; empty when there are none.
  public func loadTextDevices() throws -> [BluetoothAddress: SimulatedATCommands] {
    guard let data = FileManager.default.contents(atPath: path),
      let root = try? JSONParser.parse(Array(data)), let devices = root.objectValue?["textDevices"]?.objectValue
    else { return [:] }
    var result: [BluetoothAddress: SimulatedATCommands] = [:]
    for (key, value) in devices {
      guard let address = BluetoothAddress(key), let entry = value.objectValue, let name = entry["name"]?.stringValue,
        let interval = entry["intervalMs"]?.intValue, let txPower = entry["txPower"]?.intValue
      else {
        throw StateError(
          "\(path): the text device entry for \(key) is damaged; `beacon-provision sim reset` starts afresh")
      }
      result[address] = SimulatedATCommands(
        name: name, intervalMs: interval, txPower: txPower, writes: entry["writes"]?.intValue ?? 0)
    }
    return result
  }

  public func save(_ devices: [BluetoothAddress: SimulatedKBeaconSnapshot]) throws {
    try save(entries: devices.mapValues(Self.entry))
  }

  /// One device's entry as the file holds it, as JSON bytes. A caller that saves often keeps the entries
  /// of unchanged devices and hands them to `save(entries:)` again, serialising only what changed.
  public static func entry(_ snapshot: SimulatedKBeaconSnapshot) -> [UInt8] {
    var fields: [(String, JSONValue)] = [
      ("generation", JSONValue.string(snapshot.configuration.generation.rawValue)),
      ("password", JSONValue.string(snapshot.password)),
      ("writes", JSONValue.int(snapshot.writes)),
    ]
    if snapshot.databaseRevision > 0 { fields.append(("databaseRevision", JSONValue.int(snapshot.databaseRevision))) }
    if let bootloader = snapshot.bootloader { fields.append(("bootloader", bootloader.json)) }
    fields.append(("configuration", JSONValue.object(snapshot.configuration.deviceJSON)))
    return JSONWriter.bytes(.object(JSONObject(fields)))
  }

  /// Writes the file from entries made by `entry(_:)` and the AT devices' settings, atomically.
  public func save(
    entries: [BluetoothAddress: [UInt8]], textDevices: [BluetoothAddress: SimulatedATCommands] = [:]
  ) throws {
    var bytes = Array(#"{"version":1,"devices":"#.utf8)
    Self.appendObject(entries, to: &bytes)
    if !textDevices.isEmpty {
      bytes += Array(#","textDevices":"#.utf8)
      Self.appendObject(textDevices.mapValues(Self.entry), to: &bytes)
    }
    bytes += Array("}".utf8)
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    let temporary = path + ".tmp\(getpid())"
    guard
      FileManager.default.createFile(atPath: temporary, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
    else {
      throw StateError("cannot write \(temporary)")
    }
    // rename(2) replaces the old file atomically: a crash leaves either the old state or the new.
    guard rename(temporary, path) == 0 else { throw StateError("cannot replace \(path): \(ErrnoText.message(errno))") }
  }

  /// `{"AA:…":entry,…}` in address order.
  private static func appendObject(_ entries: [BluetoothAddress: [UInt8]], to bytes: inout [UInt8]) {
    bytes.append(UInt8(ascii: "{"))
    for (i, (address, entry)) in entries.sorted(by: { $0.key < $1.key }).enumerated() {
      if i > 0 { bytes.append(UInt8(ascii: ",")) }
      bytes += Array("\"\(address.description)\":".utf8)
      bytes += entry
    }
    bytes.append(UInt8(ascii: "}"))
  }

  /// One AT device's entry.
  static func entry(_ settings: SimulatedATCommands) -> [UInt8] {
    JSONWriter.bytes(
      .object(
        JSONObject([
          ("name", JSONValue.string(settings.name)), ("intervalMs", JSONValue.int(settings.intervalMs)),
          ("txPower", JSONValue.int(settings.txPower)), ("writes", JSONValue.int(settings.writes)),
        ])))
  }

  /// Forgets the saved state. Returns whether there was any.
  @discardableResult
  public func reset() throws -> Bool {
    guard FileManager.default.fileExists(atPath: path) else { return false }
    try FileManager.default.removeItem(atPath: path)
    return true
  }

  public struct StateError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ d: String) { description = d }
  }
}
