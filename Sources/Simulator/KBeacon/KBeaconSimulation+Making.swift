import BeaconCore
import BlueZ
import KBeacon
import Synchronization

/// How `KBeaconSimulation` makes each fleet entry's KBeacon: its name, its starting profile and the device
/// itself from a restored state (docs/protocols/kbeacon.md §10.2, §6.3).
extension KBeaconSimulation {
  /// The name a fleet KBeacon has: its entry's, else "KBPro_" and the address's low three bytes (as KKM
  /// names its units, docs/protocols/kbeacon.md §10.2) [I].
  static func deviceName(_ entry: SimulatedDevice) -> String {
    entry.name ?? "KBPro_" + entry.address.bytes.suffix(3).map { hexByte($0) }.joined()
  }

  /// The profile a fleet entry's KBeacon is made with: its generation's, named after the entry (18
  /// characters at most, §6.3), advertising what the entry's frame sections describe
  /// (`SimulatedDevice.startingConfiguration(over:)`), then the `kbeacon.settings` overlay. A factory reset
  /// brings this configuration back.
  static func startingProfile(_ entry: SimulatedDevice) -> KBeaconDeviceProfile {
    let name = String(deviceName(entry).prefix(18))
    var profile: KBeaconDeviceProfile =
      entry.kind == .kbeaconLegacy
      ? .legacy(name: name) : .pro(name: name, serial: Int(entry.address.rawValue & 0xFFFFFF))
    profile.factoryConfiguration = entry.startingConfiguration(over: profile.factoryConfiguration)
    if let settings = entry.kbeacon?.settings?.objectValue,
      let overlay = try? KBeaconConfiguration(deviceJSON: settings, generation: profile.generation)
    {
      profile.factoryConfiguration.merge(overlay)
    }
    return profile
  }

  static func make(
    _ entry: SimulatedDevice, restored: SimulatedKBeaconSnapshot? = nil, now: @escaping @Sendable () -> UInt32,
    onChange: (@Sendable () async -> Void)? = nil, onWrite: (@Sendable (SimulatedWrite) async -> Bool)? = nil,
    hook: (@Sendable (BluetoothAddress, String?) async -> Void)? = nil,
    dropLinks: @escaping @Sendable (BluetoothAddress) async -> Void
  ) -> SimulatedKBeacon {
    let section = entry.kbeacon ?? KBeaconSection()
    let profile = startingProfile(entry)
    var password = section.password.flatMap { try? KBeaconPassword($0) } ?? .factoryDefault
    var configuration: KBeaconConfiguration? = nil
    var writes = 0
    if let restored, restored.configuration.generation == profile.generation {
      writes = restored.writes
      configuration = restored.configuration
      password = (try? KBeaconPassword(restored.password)) ?? password
    }
    let start = now()
    let count = section.historyRecords ?? 24
    let base = entry.sensor?.temperature ?? 21.0
    let records = (0..<count).map { i -> SensorRecord in
      let age = UInt32(count - 1 - i) * 300
      let celsius = base + Double(i % 8) / 4
      return SensorRecord(utc: start &- age, reading: .humidity(celsius: celsius, percent: 40 + Double(i % 5)))
    }
    return SimulatedKBeacon(
      address: entry.address, profile: profile, password: password, humidityHistory: records,
      busy: section.busy ?? false, busyRequests: section.busyRequests ?? 0,
      dropLinkOnWrites: section.dropLinkOnWrites ?? 0,
      faults: section.faults, buttonless: ButtonlessDFUResponder(acceptsName: entry.dfu?.acceptsBootloaderName ?? true),
      configuration: configuration, writes: writes, databaseRevision: restored?.databaseRevision ?? 0,
      bootloader: configuration == nil ? nil : restored?.bootloader, onChange: onChange, onWrite: onWrite,
      dropLinks: dropLinks, bootloaderHook: hook, now: now)
  }
}
