import BeaconCore
import BlueZ
import CampaignPipeline
import Fleet
import FleetIO
import Foundation
import Simulator

/// The command line's choice of what a campaign runs on (`CampaignResources`): the SQLite journal in the
/// state directory, or the PostgreSQL one `--journal` names with this gateway's coordinator; the registry
/// beside it (its failures warned about through `RegistryAccess`); and the central — the one given (tests
/// pass their own) or the one `--adapter` names. Opening the SQLite journal is file I/O, so it runs through
/// `BlockingIO`; libpq's connection runs on a queue of its own (`PostgresConnection`).
extension CampaignResources {
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
    if let given {
      central = given
    } else {
      central = try await CentralFactory.make(
        adapter, scanBackend: scanBackend, pace: pace, stateDirectory: stateDirectory, gateway: shared?.gateway)
    }
    // The shared journal: the campaigns' `--journal` (with `--run` checked), or `audit`'s.
    let place = try shared.map { try $0.postgresURL() != nil ? $0.location : nil } ?? location
    if let place,
      let journal = try await place.openShared(gateway: shared?.gatewayName ?? ProcessInfo.processInfo.hostName)
    {
      var store = PostgresRegistryStore(journal: journal)
      store.insideTransaction = try SimulatorPauseHook.registryPause(central: central)
      let registry = RegistryAccess.recorder(FleetRegistry(store: store))
      // The coordinator keeps the journal itself; the campaign's records go through the test hook
      // (`SimulatorPauseHook`, a simulated adapter only), and so may the registry's transactions.
      return CampaignResources(
        journal: try SimulatorPauseHook.wrap(journal, central: central), central: central, registry: registry,
        coordinator: shared.map { GatewayCoordinator(journal: journal, settings: $0.coordination) })
    }
    return CampaignResources(
      journal: try SimulatorPauseHook.wrap(local, central: central), central: central,
      registry: RegistryAccess.recorder(local))
  }
}
