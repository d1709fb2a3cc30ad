import BeaconCore
import BlueZ
import Fleet
import SharedJournal
import Foundation
import Simulator

/// What every campaign (`plan`/`apply`, `dfu update`) opens before it scans: the journal — the SQLite one in
/// the state directory, or the PostgreSQL one several gateways share (`--journal`, issue #18) with this
/// gateway's `coordinator` — the fleet registry beside that journal (best effort: `RegistryAccess`), and the
/// central (the one given — tests pass their own — or the one `--adapter`
/// names). Opening the SQLite journal is file I/O, so it runs through `BlockingIO`; libpq's connection
/// runs on a queue of its own (`PostgresConnection`).
struct CampaignResources {
  /// Behind `SimulatorPauseHook` when a test asks for it on a simulated adapter.
  private(set) var journal: any CampaignJournal
  let central: any Central
  let registry: RegistryRecorder
  /// Set when the journal is shared: claims, leases and sightings of this gateway.
  var coordinator: GatewayCoordinator? = nil

  init(journal: Journal, central: any Central) {
    self.journal = journal
    self.central = central
    registry = RegistryAccess.recorder(journal)
  }

  /// The journal's file (which also holds the fleet registry) in a state directory.
  static func journalPath(_ stateDirectory: String) -> String { stateDirectory.appendingPathComponent("journal.sqlite") }

  static func open(
    stateDirectory: String, central given: (any Central)?, adapter: AdapterChoice?, scanBackend: ScanBackend,
    pace: SimulationPace, shared: SharedJournalOptions? = nil, location: JournalLocationOptions? = nil
  ) async throws -> CampaignResources {
    let local: Journal
    do {
      local = try await BlockingIO.run { try Journal(path: journalPath(stateDirectory)) }
    } catch {
      throw CLIFailure("cannot open the journal in \(stateDirectory): \(error)")
    }
    let central: any Central
    if let given { central = given } else {
      central = try await CentralFactory.make(
        adapter, scanBackend: scanBackend, pace: pace, stateDirectory: stateDirectory, gateway: shared?.gateway)
    }
    var resources = CampaignResources(journal: local, central: central)
    // The shared journal: the campaigns' `--journal` (with `--run` checked), or `audit`'s.
    let place = try shared.map { try $0.postgresURL() != nil ? $0.location : nil } ?? location
    if let place, let journal = try await place.openShared(gateway: shared?.gatewayName ?? ProcessInfo.processInfo.hostName) {
      let registry = RegistryAccess.recorder(FleetRegistry(store: PostgresRegistryStore(journal: journal)))
      resources = CampaignResources(journal: journal, central: central, registry: registry)
      if let shared { resources.coordinator = GatewayCoordinator(journal: journal, settings: shared.coordination) }
    }
    resources.journal = try SimulatorPauseHook.wrap(resources.journal, central: central)
    return resources
  }

  private init(journal: any CampaignJournal, central: any Central, registry: RegistryRecorder) {
    (self.journal, self.central, self.registry) = (journal, central, registry)
  }
}
