import BeaconCore
import Fleet
import Profiles
import TextStream

/// Which scanned devices a campaign visits. Rules, in order:
/// - only connectable devices (unless told otherwise);
/// - `select.addresses` when given; else, with an inventory, only the devices it lists;
/// - the profile's name glob, RSSI floor and inventory tags (`Selection.rejection(of:)`);
/// - with none of addresses, inventory or name given, only devices that advertise KKM frames (the 0x2080
///   scan response, KSensor or System frames), so a bare profile never connects to a stranger's phone [I];
///   for a `commands` profile, only devices that advertise a known text-stream service.
/// Devices the profile names (addresses or inventory) but the scan did not hear are reported as not seen.
public struct TargetSelection {
  public var targets: [Target] = []
  public var notSeen: [String] = []
  /// Devices the scan heard that the profile does not select, and why (`plan --explain`, `--json`).
  public var notSelected: [NotSelected] = []

  public struct NotSelected: Sendable, Hashable, Encodable {
    public var address: String
    public var name: String?
    public var reason: String
  }

  /// The addresses the profile names (`select.addresses`, else its inventory's rows), nil when it names none.
  public static func namedAddresses(of profile: LoadedProfile) -> [String]? {
    profile.profile.select.addresses?.map { $0.uppercased() } ?? profile.inventory?.rows.map(\.address)
  }

  /// The devices whose sighting completes the pre-campaign scan: every device the profile names (empty when
  /// it names none, so the scan runs its full length).
  public static func named(by profile: LoadedProfile) -> Set<BluetoothAddress> {
    Set((namedAddresses(of: profile) ?? []).compactMap { BluetoothAddress($0) })
  }

  /// `requireConnectable: false` (a passive audit) also selects devices that advertise without accepting
  /// connections, so one that stopped being connectable shows up as drift rather than as a stranger.
  public init(profile: LoadedProfile, records: [DeviceRecord], requireConnectable: Bool = true) {
    let select = profile.profile.select
    let named = Self.namedAddresses(of: profile).map(Set.init)
    for record in records.sorted(by: { $0.address < $1.address }) {
      let address = record.address.description
      func skip(_ reason: String) {
        notSelected.append(NotSelected(address: address, name: record.name, reason: reason))
      }
      guard record.connectable == true || !requireConnectable else {
        skip("not connectable")
        continue
      }
      if let named, !named.contains(address) {
        skip(select.addresses == nil ? "not in the inventory" : "not in select.addresses")
        continue
      }
      if named == nil, select.name == nil {
        if profile.profile.commands != nil {
          guard TextStreamProfile.matching(advertised: record.vendorServices ?? []) != nil else {
            skip("advertises no text-stream service, and the profile names no addresses, inventory or name")
            continue
          }
        } else if !record.frames.contains(where: { [.kkmScanResponse, .kSensor, .kkmSystem].contains($0.kind) }) {
          skip("advertises no KKM frame, and the profile names no addresses, inventory or name")
          continue
        }
      }
      let tags = profile.inventory?.row(for: address)?.tags ?? []
      let candidate = Selection.Candidate(
        address: address, name: record.name, rssi: record.rssi.max.map(Int.init), tags: tags)
      if let reason = select.rejection(of: candidate) {
        skip(reason)
        continue
      }
      targets.append(Target(heard: record))
    }
    let seen = Set(records.map(\.address.description))
    notSeen = (named ?? []).filter { !seen.contains($0) }.sorted()
  }
}
