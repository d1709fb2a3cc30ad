import BeaconCore
import Fleet
import FleetIO
import Foundation
import Profiles

/// What a campaign ends with: the scheduler's summary, the devices named but not heard, those heard but
/// not selected, and for a firmware campaign the per-device reports, the version a package installs and the
/// packages a catalogue resolved.
public struct CampaignOutcome: Sendable {
  public var summary: CampaignSummary
  public var notSeen: [String]
  public var notSelected: [TargetSelection.NotSelected]
  public var reports: [String: FirmwareUpdateReport]
  public var version: FirmwareVersion?
  public var packages: [ResolvedPackage]
  /// A staged rollout's waves (`--rollout`), and whether it stopped over the threshold.
  public var rollout: RolloutResult?

  public init(
    summary: CampaignSummary, notSeen: [String] = [], notSelected: [TargetSelection.NotSelected] = [],
    reports: [String: FirmwareUpdateReport] = [:], version: FirmwareVersion? = nil, packages: [ResolvedPackage] = [],
    rollout: RolloutResult? = nil
  ) {
    (self.summary, self.notSeen, self.notSelected, self.reports, self.version, self.packages) =
      (summary, notSeen, notSelected, reports, version, packages)
    self.rollout = rollout
  }
}
