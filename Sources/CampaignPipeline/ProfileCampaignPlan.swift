import BeaconCore
import Fleet
import Profiles
import TextStream

/// `plan` and `apply` of a profile (`CampaignPlan`): KBeacons through `ProfileWork` (connect, authenticate,
/// read back, diff, one `cfg` write, verify), or with a `commands` section text-stream devices through
/// `TextCommandWork`. Every templated value of every device is checked before any radio work
/// for the devices the profile names, and after the scan for the ones only the scan found — all problems at
/// once (`TemplatePreflight`).
public struct ProfileCampaignPlan: CampaignPlan {
  public var profile: LoadedProfile
  /// The profile's file, as the run records it.
  public var path: String
  public var runRecipe: RunRecipe
  public var passwords: ApplyCampaign.Passwords
  public var resolver: DesiredResolver
  /// `plan`: read and diff only.
  public var dryRun: Bool

  /// Refuses a new password KBeacons would not take (8 to 16 characters, docs/protocols/kbeacon.md §4).
  public init(
    profile: LoadedProfile, path: String, recipe: RunRecipe, passwords: ApplyCampaign.Passwords,
    resolver: DesiredResolver,
    dryRun: Bool
  ) throws {
    if let new = passwords.new, !(8...16).contains(new.value.count) {
      throw CampaignFailure("\(path): the new password must be 8 to 16 characters")
    }
    (self.profile, self.path, self.runRecipe, self.passwords, self.resolver, self.dryRun) =
      (profile, path, recipe, passwords, resolver, dryRun)
  }

  public var kind: String { dryRun ? "plan" : "apply" }
  public var source: String { path }
  public var resumable: Bool { !dryRun }
  public var completeWhenSeen: Set<BluetoothAddress> { TargetSelection.named(by: profile) }
  public var visitsUnheard: Bool { false }
  public var surveys: Bool { false }
  public var announcements: [PipelineEvent] { [] }

  public func checkBeforeRadio() async throws {
    try check(TargetSelection.namedAddresses(of: profile) ?? [])
  }

  public func select(_ records: [DeviceRecord]) throws -> CampaignSelection {
    let selection = TargetSelection(profile: profile, records: records)
    let named = Set(TargetSelection.namedAddresses(of: profile) ?? [])
    try check(selection.targets.map(\.address.description).filter { !named.contains($0) })
    return CampaignSelection(targets: selection.targets, notSeen: selection.notSeen, notSelected: selection.notSelected)
  }

  public func recipe() async throws -> RunRecipe { runRecipe }

  public func prepare(
    _ selection: CampaignSelection, resources: CampaignResources, parallel: Int,
    emit: @escaping @Sendable (PipelineEvent) -> Void
  ) async throws -> PreparedWork {
    let central = resources.central
    if profile.profile.commands == nil {
      return PreparedWork(
        work: ApplyCampaign.work(
          profile: profile, opener: KBeaconOpener(central: central), passwords: passwords, resolver: resolver,
          dryRun: dryRun,
          registry: resources.registry))
    }
    return PreparedWork(
      work: ApplyCampaign.work(textCommands: profile, opener: TextStreamCommandOpener(central: central), dryRun: dryRun)
    )
  }

  /// Every templated value of these devices, filled in and checked (`TemplatePreflight`); all problems at once.
  func check(_ addresses: [String]) throws {
    if let report = TemplatePreflight(profile: profile, resolver: resolver).report(addresses: addresses) {
      throw CampaignFailure(report)
    }
  }
}
