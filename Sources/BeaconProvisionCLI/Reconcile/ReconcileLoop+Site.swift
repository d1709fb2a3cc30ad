import CampaignPipeline
import Fleet
import FleetIO
import Foundation

/// `reconcile` on a PostgreSQL journal several gateways share (`ReconcileSiteRuns`): before a profile's
/// pass, the settled devices this gateway has a new reason to visit are reopened in the shared run; after
/// it, the due devices another gateway settled go into this gateway's schedule. A journal that does not
/// answer costs this pass's step, never the loop: the next pass tries again.
extension ReconcileLoop {
  /// Reopens the devices `reasons` names given the run's rows (`ReconcileSiteRuns.reopenings`, or
  /// `firmwareReopenings`), if their rows were settled more than `windowAge` seconds ago (before the window
  /// that showed why).
  func reopen(
    run: String, site: PostgresJournal, windowAge: Double,
    reasons: ([String: JournalDevice]) -> [String: ReconcileSiteRuns.Reopening]
  ) async {
    do {
      let reasons = reasons(try await rows(run, site))
      for (address, reason) in reasons.sorted(by: { $0.key < $1.key }) {
        guard
          try await site.reopen(
            run: run, address: address, states: reason.states, settledFor: windowAge, reason: reason.description)
        else { continue }
        await output.emit(
          .init(event: "reopened", address: address, reason: reason.description),
          "\(address): reopened in shared run \(run): \(reason)")
      }
    } catch {
      output.line("reconcile: shared journal \(site.location): cannot reopen devices of run \(run): \(error)")
    }
  }

  /// Puts the due devices another gateway settled in `run` into `ledger`, as that gateway left them.
  func learnElsewhere(
    due: [String], visited: Set<String>, run: String, site: PostgresJournal, profile: ReconcileProfile,
    drift: [String: [String]], ledger: inout ReconcileLedger
  ) async {
    guard let rows = await readRows(run, site) else { return }
    let at = now()
    for (address, how) in ReconcileSiteRuns.settledElsewhere(due: due, visited: visited, rows: rows).sorted(by: {
      $0.key < $1.key
    }) {
      switch how {
      case .converged(let wrote):
        ledger.verified(address, fingerprint: profile.fingerprint, drift: drift[address] ?? [], now: at, wrote: wrote)
        await output.emit(
          .init(event: "converged-elsewhere", address: address, profile: profile.path),
          "\(address): converged by another gateway (run \(run))")
      case .failed(let wrongPassword, let detail):
        let delay = ledger.failed(
          address, fingerprint: profile.fingerprint, wrongPassword: wrongPassword, now: at,
          base: settings.backoffBase)
        await output.emit(
          .init(event: "failed-elsewhere", address: address, profile: profile.path, reason: detail, seconds: delay),
          "\(address): failed on another gateway (\(detail)); "
            + (delay.map { "next try here in \(Int($0)) s" } ?? "not retried until the profile changes"))
      case .shadowed(let detail):
        await shadowed(address, profile, reason: detail, elsewhere: true, ledger: &ledger)
      case .notSelected:
        ledger.notSelected(address, fingerprint: profile.fingerprint, now: at)
      }
    }
  }

  /// Puts the due devices whose firmware check another gateway settled in `run` into `ledger`, as that
  /// gateway left them (`ReconcileSiteRuns.firmwareSettledElsewhere`). Returns their outcomes for a rollout
  /// (address → failed; a shadowed device has none yet).
  @discardableResult
  func learnFirmwareElsewhere(
    due: [String], visited: Set<String>, run: String, site: PostgresJournal, profile: ReconcileProfile,
    firmware: ReconcileFirmware, ledger: inout ReconcileLedger
  ) async -> [String: Bool] {
    guard let rows = await readRows(run, site) else { return [:] }
    var outcomes: [String: Bool] = [:]
    let (at, path) = (now(), profile.path)
    let settled = ReconcileSiteRuns.firmwareSettledElsewhere(due: due, visited: visited, rows: rows)
    for (address, how) in settled.sorted(by: { $0.key < $1.key }) {
      switch how {
      case .checked(let updated):
        outcomes[address] = false
        ledger.firmwareChecked(address, source: firmware.source, now: at)
        await output.emit(
          .init(event: "firmware-elsewhere", address: address, profile: path),
          "\(address): firmware \(updated ? "updated" : "checked") by another gateway (run \(run))")
      case .shadowed(let detail):
        let delay = ledger.firmwareShadowed(address, now: at, timeout: firmware.bootloaderTimeout)
        await output.emit(
          .init(event: "firmware-shadowed-elsewhere", address: address, profile: path, reason: detail, seconds: delay),
          "\(address): firmware shadowed on another gateway (\(detail)); next try here in \(Self.seconds(delay))")
      case .failed(true, let detail):
        outcomes[address] = true
        ledger.failed(address, fingerprint: profile.fingerprint, wrongPassword: true, now: at)
        await output.emit(
          .init(event: "firmware-failed-elsewhere", address: address, profile: path, reason: detail),
          "\(address): firmware failed on another gateway (\(detail)); not retried until the profile changes")
      case .failed(false, let detail):
        outcomes[address] = true
        let delay = ledger.firmwareFailed(address, now: at, base: settings.backoffBase)
        await output.emit(
          .init(event: "firmware-failed-elsewhere", address: address, profile: path, reason: detail, seconds: delay),
          "\(address): firmware failed on another gateway (\(detail)); next try here in \(Self.seconds(delay))")
      }
    }
    return outcomes
  }

  /// The run's rows, or nil once it said that the journal did not answer (this pass's step is lost, not the loop).
  private func readRows(_ run: String, _ site: PostgresJournal) async -> [String: JournalDevice]? {
    do { return try await rows(run, site) } catch {
      output.line("reconcile: shared journal \(site.location): cannot read run \(run): \(error)")
      return nil
    }
  }

  private func rows(_ run: String, _ site: PostgresJournal) async throws -> [String: JournalDevice] {
    Dictionary(try await site.devices(run: run).map { ($0.address, $0) }, uniquingKeysWith: { first, _ in first })
  }
}
