import BeaconCore
import BlueZ
import Fleet
import Simulator

/// What every campaign (`plan`/`apply`, `dfu update`) opens before it scans: the journal in the state
/// directory, the fleet registry in it (best effort: `RegistryAccess`), and the central (the one given —
/// tests pass their own — or the one `--adapter` names). Opening the SQLite journal is file I/O, so it runs
/// through `BlockingIO`.
struct CampaignResources {
  let journal: Journal
  let central: any Central
  let registry: RegistryRecorder

  init(journal: Journal, central: any Central) {
    self.journal = journal
    self.central = central
    registry = RegistryAccess.recorder(journal)
  }

  /// The journal's file (which also holds the fleet registry) in a state directory.
  static func journalPath(_ stateDirectory: String) -> String { stateDirectory.appendingPathComponent("journal.sqlite") }

  static func open(
    stateDirectory: String, central given: (any Central)?, adapter: AdapterChoice?, scanBackend: ScanBackend,
    pace: SimulationPace
  ) async throws -> CampaignResources {
    let journal: Journal
    do {
      journal = try await BlockingIO.run { try Journal(path: journalPath(stateDirectory)) }
    } catch {
      throw CLIFailure("cannot open the journal in \(stateDirectory): \(error)")
    }
    if let given { return CampaignResources(journal: journal, central: given) }
    let central = try await CentralFactory.make(adapter, scanBackend: scanBackend, pace: pace, stateDirectory: stateDirectory)
    return CampaignResources(journal: journal, central: central)
  }
}
