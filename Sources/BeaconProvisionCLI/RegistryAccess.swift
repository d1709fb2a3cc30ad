import BeaconCore
import Fleet
import Foundation

/// The fleet registry as the commands keep it current (issue #13): `scan` records its sightings, `plan` and
/// `apply` their scan and every configuration read, `dfu update` its scan and the identities it reads
/// before and after each update, `read` the configuration it shows. It lives in the journal's file in the
/// state directory.
///
/// Best effort everywhere: a registry that cannot be opened or written never fails a command or a
/// campaign — the failure is logged as a warning (`beacon-provision.registry`) on standard error, once
/// per command, and the command's own output is unchanged.
enum RegistryAccess {
  static let logger = CLILog.logger("registry")

  /// A recorder over this journal whose failures become warnings.
  static func recorder(_ journal: Journal) -> RegistryRecorder { recorder(FleetRegistry(journal: journal)) }

  /// A recorder over this registry (the shared one, issue #18) whose failures become warnings.
  static func recorder(_ registry: FleetRegistry) -> RegistryRecorder {
    RegistryRecorder(registry: registry, warn: { logger.warning("\($0)") })
  }

  /// Opens the journal in `stateDirectory` off the cooperative pool for a command that has no journal of
  /// its own (`scan`, `read`); nil, after a warning, when it cannot be opened.
  static func open(stateDirectory: String) async -> RegistryRecorder? {
    do {
      let journal = try await BlockingIO.run { try Journal(path: CampaignResources.journalPath(stateDirectory)) }
      return recorder(journal)
    } catch {
      logger.warning("cannot open the fleet registry in \(stateDirectory): \(error)")
      return nil
    }
  }
}
