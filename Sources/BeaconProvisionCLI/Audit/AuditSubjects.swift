import Audit
import BeaconCore
import CampaignPipeline
import Foundation
import Profiles

/// Who is audited, and against what: every device a profile or the extra inventory names, and every device
/// the scan heard. A heard device belongs to the first profile that selects it (`TargetSelection`, without
/// the connectable rule, so a device that stopped accepting connections is judged, not disowned); a named
/// device nobody heard belongs to the first profile that names it. Tags are those of the profile's inventory
/// and of `--inventory` together: a device in both keeps every tag (the `--inventory` tags were dropped
/// without a word when the profile's inventory also listed the device).
struct AuditSubjects {
  var subjects: [AuditSubject] = []

  init(profiles: [LoadedProfile], inventory: Inventory?, records: [DeviceRecord], scanStarted: Date) {
    let heard = Dictionary(records.map { ($0.address.description, $0) }, uniquingKeysWith: { a, _ in a })
    var owner: [String: LoadedProfile] = [:]
    var named = Set(inventory?.rows.map(\.address) ?? [])
    for profile in profiles {
      for target in TargetSelection(profile: profile, records: records, requireConnectable: false).targets
      where owner[target.address.description] == nil {
        owner[target.address.description] = profile
      }
      for address in TargetSelection.namedAddresses(of: profile) ?? [] {
        named.insert(address)
        if heard[address] == nil, owner[address] == nil { owner[address] = profile }
      }
    }
    let resolver = DesiredResolver(urlCheck: ProfileFiles.eddystoneURLCheck)
    for address in named.union(heard.keys).sorted() {
      let profile = owner[address]
      let tags = (profile?.inventory?.row(for: address)?.tags ?? []).union(inventory?.row(for: address)?.tags ?? [])
      var subject = AuditSubject(
        address: address, profile: profile?.profile.file, named: named.contains(address), tags: tags.sorted(),
        desired: profile.map { resolver.resolve($0.profile.desired, $0.variables(for: address)) },
        sighting: heard[address], scanStarted: scanStarted)
      subject.judgedOnlyByReading = profile?.profile.commands != nil
      subjects.append(subject)
    }
  }
}
