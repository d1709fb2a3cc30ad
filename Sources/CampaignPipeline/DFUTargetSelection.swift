import BeaconCore
import Fleet
import Profiles

/// Which scanned devices a firmware campaign visits, and their batteries. Rules, in order:
/// - only connectable devices that are not already DFU bootloaders (FE59 in their advertising);
/// - `--address` when given (devices named but not heard are reported as not seen);
/// - `--name` glob on the advertised name;
/// - with neither, only devices that advertise KKM frames (0x2080 scan response, KSensor, System) [I].
/// Battery: the KKM 0x2080 scan response's percentage, else the System frame's; absent = unknown.
public struct DFUTargetSelection {
  public var targets: [Target] = []
  public var notSeen: [String] = []
  public var batteries: [String: Int] = [:]

  public init(records: [DeviceRecord], addresses: [String], name: String?) {
    let named = addresses.isEmpty ? nil : Set(addresses.map { $0.uppercased() })
    for record in records.sorted(by: { $0.address < $1.address }) {
      let address = record.address.description
      guard record.connectable == true else { continue }
      if let named, !named.contains(address) { continue }
      if let name, !Glob(name).matches(record.name ?? "") { continue }
      let kkm = record.frames.contains { [.kkmScanResponse, .kSensor, .kkmSystem].contains($0.kind) }
      if named == nil, name == nil, !kkm { continue }
      targets.append(Target(heard: record))
      if let battery = Self.battery(record) { batteries[address] = battery }
    }
    let seen = Set(records.map(\.address.description))
    notSeen = (named ?? []).filter { !seen.contains($0) }.sorted()
  }

  public static func battery(_ record: DeviceRecord) -> Int? {
    var system: Int?
    for frame in record.frames {
      switch frame {
      case .kkmScanResponse(let f): if let p = f.batteryPercent { return Int(p) }
      case .kkmSystem(let f): system = Int(f.batteryPercent)
      default: break
      }
    }
    return system
  }
}
