import Fleet

/// `reconcile --firmware` on a shared journal: the firmware checks of a site go through shared runs too, so
/// the leases and the nearest-gateway rule decide which gateway connects, and a device one gateway updated
/// (or found current) is not connected to by the others in the same period.
///
/// - **The run** of a profile's firmware checks is named after the profile's content and the firmware source
///   (the catalogue's place and the version asked for) and the `--recheck` period: `reconcile-firmware-<first
///   12 hex digits of their SHA-256>-<period number>` (`firmwareRunID`). A new release under `latest` is not a
///   new run [I: the source names `latest`, not the release]: a device checked in this period waits for the
///   next, as on one gateway (`ReconcileLedger.firmwareDecision`).
/// - **Reopening** (`firmwareReopenings`): a device whose firmware check failed in the run (for a reason other
///   than a refused password) is visited again by a gateway that finds it due once its own backoff for the
///   device, learnt when the failure was, ran out.
/// - **Settled elsewhere** (`firmwareSettledElsewhere`): a due device another gateway settled goes into this
///   gateway's schedule as that gateway left it: checked (updated, current or not for this catalogue: the
///   run's `verified`, `compliant` and `skipped` rows), shadowed by a neighbour's bootloader, or failed.
extension ReconcileSiteRuns {
  /// The shared run for the firmware checks of devices under the profile of content `fingerprint` from
  /// `source` (`ReconcileFirmware.source`) at `now` with checks every `recheck` seconds.
  public static func firmwareRunID(fingerprint: String, source: String, now: Double, recheck: Double) -> String {
    let recipe = RunRecipe("firmware", content: Array("\(fingerprint)\n\(source)".utf8))
    return runID("reconcile-firmware", recipe: recipe.text, now: now, recheck: recheck)
  }

  /// How another gateway left a device's firmware check.
  public enum FirmwareElsewhere: Sendable, Equatable {
    /// Updated and read back (`updated`), or found current.
    case checked(updated: Bool)
    /// It found a neighbour's DFU bootloader answering at the device's address (`bootloaderAtAddress`).
    case shadowed(detail: String)
    case failed(wrongPassword: Bool, detail: String)
  }

  /// The due devices (`due`) this gateway did not visit (`visited`) that the firmware run's rows show settled
  /// by another gateway. Still-open devices are left out: the next pass finds them again.
  public static func firmwareSettledElsewhere(due: [String], visited: Set<String>, rows: [String: JournalDevice])
    -> [String: FirmwareElsewhere]
  {
    var result: [String: FirmwareElsewhere] = [:]
    for address in due where !visited.contains(address) {
      guard let row = rows[address] else { continue }
      let detail = row.detail ?? "failed"
      switch (row.state, row.failureKind) {
      case (.verified, _): result[address] = .checked(updated: true)
      case (.compliant, _), (.skipped, _): result[address] = .checked(updated: false)
      case (.failed, .bootloaderAtAddress?): result[address] = .shadowed(detail: detail)
      case (.failed, let kind): result[address] = .failed(wrongPassword: kind == .wrongPassword, detail: detail)
      case (.pending, _), (.working, _), (.planned, _): break
      }
    }
    return result
  }

  /// The due devices whose firmware run row failed for a reason worth another try, and whose failure (or
  /// shadowing) this gateway's schedule knows — so it is due now because that backoff ran out: reopened
  /// (`.retry`). A failed row this gateway never learned of is learned first (`firmwareSettledElsewhere`).
  public static func firmwareReopenings(due: [String], rows: [String: JournalDevice], ledger: ReconcileLedger)
    -> [String: Reopening]
  {
    var result: [String: Reopening] = [:]
    for address in due {
      guard let row = rows[address], row.state == .failed, row.failureKind != .wrongPassword,
        let entry = ledger.devices[address], (entry.firmwareFailures ?? 0) > 0 || entry.firmwareRetryAt != nil
      else { continue }
      result[address] = .retry
    }
    return result
  }
}
