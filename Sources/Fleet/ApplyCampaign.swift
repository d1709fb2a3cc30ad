import BeaconCore
import Profiles

/// `plan` and `apply` across a fleet, on the shared `Campaign` scheduler. Per KBeacon (`ProfileWork`):
/// connect and authenticate, read the configuration back, check selection and device limits, diff against
/// the profile, write one `cfg` message holding only the changed keys, read back and compare. With a
/// `registry`, each configuration read (the first, and the read-back after a write) is recorded in the fleet
/// registry — best effort: a registry failure is warned about and never fails a device (`RegistryRecorder`).
/// A profile with a `commands` section visits text-stream devices instead (`init(textCommands:…)`,
/// `TextCommandWork`).
public struct ApplyCampaign: Sendable {
  public struct Options: Sendable {
    public var parallel: Int
    public var retry: RetryPolicy
    /// `plan`: read and diff only.
    public var dryRun: Bool

    public init(parallel: Int = 4, retry: RetryPolicy = RetryPolicy(), dryRun: Bool = false) {
      self.parallel = max(1, parallel)
      self.retry = retry
      self.dryRun = dryRun
    }
  }

  public struct Passwords: Sendable {
    public var current: Secret
    /// Rotate every device to this one.
    public var new: Secret?
    public init(current: Secret, new: Secret? = nil) {
      self.current = current
      self.new = new
    }
  }

  let campaign: Campaign
  public var events: AsyncStream<CampaignEvent> { campaign.events }

  public init(
    profile: LoadedProfile, targets: [Target], opener: any SessionOpener, journal: any CampaignJournal, run: String,
    options: Options, passwords: Passwords, resolver: DesiredResolver, registry: RegistryRecorder? = nil,
    sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
  ) {
    let work = ProfileWork(
      profile: profile, opener: opener, passwords: passwords, resolver: resolver, dryRun: options.dryRun,
      registry: registry)
    campaign = Campaign(
      work: work, targets: targets, journal: journal, run: run,
      options: .init(parallel: options.parallel, retry: options.retry),
      sleep: sleep)
  }

  /// `plan`/`apply` of a profile's `commands` section on text-stream devices (`TextCommandWork`).
  public init(
    textCommands profile: LoadedProfile, targets: [Target], opener: any TextCommandOpener, journal: any CampaignJournal,
    run: String,
    options: Options, sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
  ) {
    let work = TextCommandWork(profile: profile, opener: opener, dryRun: options.dryRun)
    campaign = Campaign(
      work: work, targets: targets, journal: journal, run: run,
      options: .init(parallel: options.parallel, retry: options.retry),
      sleep: sleep)
  }

  /// One KBeacon's `plan`/`apply` (`ProfileWork`), for a caller that runs the scheduler itself
  /// (`CampaignPipeline`: one `Campaign` for every kind of campaign).
  public static func work(
    profile: LoadedProfile, opener: any SessionOpener, passwords: Passwords, resolver: DesiredResolver, dryRun: Bool,
    registry: RegistryRecorder? = nil
  ) -> any CampaignWork {
    ProfileWork(
      profile: profile, opener: opener, passwords: passwords, resolver: resolver, dryRun: dryRun, registry: registry)
  }

  /// One text-stream device's `plan`/`apply` of a profile's `commands` (`TextCommandWork`), likewise.
  public static func work(textCommands profile: LoadedProfile, opener: any TextCommandOpener, dryRun: Bool)
    -> any CampaignWork
  {
    TextCommandWork(profile: profile, opener: opener, dryRun: dryRun)
  }

  public func requestStop() async { await campaign.requestStop() }
  public func start() async -> CampaignSummary { await campaign.start() }
}
