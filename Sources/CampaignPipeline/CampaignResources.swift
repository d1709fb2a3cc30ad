import BeaconCore
import Fleet
import FleetIO
import Foundation

/// What every campaign (`plan`/`apply`, `dfu update`, `audit --connect`) runs on: the journal — the SQLite
/// one in the state directory, or the PostgreSQL one several gateways share (`--journal`) with
/// this gateway's `coordinator` — the fleet registry beside that journal (best effort: `RegistryRecorder`),
/// and the central. The command line chooses and opens them (`CampaignResources.open` there: the adapter
/// `--adapter` names, the journal `--journal` names); the pipeline only uses them.
public struct CampaignResources: Sendable {
  public let journal: any CampaignJournal
  public let central: any Central
  public let registry: RegistryRecorder
  /// Set when the journal is shared: claims, leases and sightings of this gateway.
  public var coordinator: GatewayCoordinator?

  public init(
    journal: any CampaignJournal, central: any Central, registry: RegistryRecorder,
    coordinator: GatewayCoordinator? = nil
  ) {
    (self.journal, self.central, self.registry, self.coordinator) = (journal, central, registry, coordinator)
  }

  /// The journal's file (which also holds the fleet registry) in a state directory.
  public static func journalPath(_ stateDirectory: String) -> String {
    (stateDirectory as NSString).appendingPathComponent("journal.sqlite")
  }
}
