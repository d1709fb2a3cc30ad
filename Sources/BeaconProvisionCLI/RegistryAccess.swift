import BeaconCore
import CampaignPipeline
import Fleet
import FleetIO
import Foundation

/// The fleet registry as the commands keep it current for `audit`: `scan` records its sightings, `plan` and
/// `apply` their scan and every configuration read, `dfu update` its scan and the identities it reads
/// before and after each update, `read` the configuration it shows. It lives in the journal's file in the
/// state directory, or — with `--journal postgresql://…` (or `BEACON_PROVISION_JOURNAL`), for `scan`, `read`
/// and `monitor` as for the campaigns — on the PostgreSQL server several gateways share, so
/// `audit --journal` sees what every gateway heard.
///
/// Best effort everywhere: a registry that cannot be opened or written never fails a command or a
/// campaign — the failure is logged as a warning (`beacon-provision.registry`) on standard error, once
/// per command, and the command's own output is unchanged.
enum RegistryAccess {
  static let logger = CLILog.logger("registry")

  /// A recorder over this journal whose failures become warnings.
  static func recorder(_ journal: Journal) -> RegistryRecorder { recorder(FleetRegistry(journal: journal)) }

  /// A recorder over this registry (the shared one) whose failures become warnings.
  static func recorder(_ registry: FleetRegistry) -> RegistryRecorder {
    RegistryRecorder(registry: registry, warn: { logger.warning("\($0)") })
  }

  /// Opens the registry for a command that has no journal of its own (`scan`, `read`): the shared one when
  /// `location` names a PostgreSQL server, else the journal in `stateDirectory` (off the cooperative pool);
  /// nil, after a warning, when it cannot be opened. A malformed URL was refused before (`checkShared`).
  static func open(stateDirectory: String, location: JournalLocationOptions? = nil) async -> RegistryRecorder? {
    if let location, (try? location.postgresURL()) != nil { return await shared(location) }
    do {
      let journal = try await BlockingIO.run { try Journal(path: CampaignResources.journalPath(stateDirectory)) }
      return recorder(journal)
    } catch {
      logger.warning("cannot open the fleet registry in \(stateDirectory): \(error)")
      return nil
    }
  }

  /// The shared registry `location` names, as this host; nil without a URL, or after a warning when the
  /// server cannot be reached (the registry never fails a command).
  static func shared(_ location: JournalLocationOptions) async -> RegistryRecorder? {
    do {
      guard let journal = try await location.openShared(gateway: ProcessInfo.processInfo.hostName) else { return nil }
      return recorder(FleetRegistry(store: PostgresRegistryStore(journal: journal)))
    } catch {
      logger.warning("cannot open the shared fleet registry: \(error)")
      return nil
    }
  }

  /// Refuses a malformed `--journal` URL (or one carrying a password) before the command does anything, as
  /// the campaigns do: that is a mistake in what was typed, not a registry that is down.
  static func checkShared(_ location: JournalLocationOptions) throws { _ = try location.postgresURL() }
}
