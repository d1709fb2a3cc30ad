import Fleet
import Foundation

/// How `reconcile` shares a site with other gateways on the PostgreSQL journal, with no coordinator of its
/// own: every gateway visits the devices it finds due through the same shared run, so the leases and the
/// nearest-gateway rule of `apply --journal` (`SiteCampaign`) decide which gateway connects, and a device
/// one gateway settled is not visited again by the others.
///
/// - **The run** of a profile is named after its content and the `--recheck` period: `reconcile-<first 12
///   hex digits of the content's SHA-256>-<period number>` (`runID`). Gateways with the same profile meet in
///   the same run without agreeing on anything else; a changed profile is a new run (every device due again);
///   a new period is a new run, so each device gets its periodic connected check once per period across the
///   site [I: periods are counted on each gateway's own clock from 1970; near a boundary two clocks that
///   disagree can put one device in two runs, which costs one more check and no write, since a compliant
///   device is never written].
/// - **Reopening** (`reopenings`): a device settled in the run is visited again only when this gateway has a
///   reason the run cannot know — drift on the air, or a failure whose backoff ran out — and the row was
///   settled before the window that showed the reason began (`PostgresJournal.reopen`).
/// - **Settled elsewhere** (`settledElsewhere`): a due device this gateway did not visit because another
///   gateway settled it goes into this gateway's schedule as that gateway left it (converged: verified now;
///   failed: backing off, or a wrong password never retried), so the schedule stays per gateway
///   (`reconcile.json`) while the visits are shared.
public enum ReconcileSiteRuns {
  /// The shared run for a profile of content `fingerprint` (a `RunRecipe` text) at `now` (seconds since
  /// 1970) with checks every `recheck` seconds.
  public static func runID(fingerprint: String, now: Double, recheck: Double) -> String {
    runID("reconcile", recipe: fingerprint, now: now, recheck: recheck)
  }

  /// `<prefix>-<first 12 hex digits of the recipe's SHA-256>-<period number>`.
  static func runID(_ prefix: String, recipe: String, now: Double, recheck: Double) -> String {
    let digest = recipe.range(of: "sha256:").map { recipe[$0.upperBound...] } ?? Substring(recipe)
    let period = recheck > 0 && now.isFinite ? Int((now / recheck).rounded(.down)) : 0
    return "\(prefix)-\(digest.prefix(12))-\(period)"
  }

  /// Why a settled device of the run is reopened.
  public enum Reopening: Sendable, Equatable, CustomStringConvertible {
    /// Drift on the air since it was settled (compliant or verified).
    case drift([String])
    /// It failed, and this gateway's backoff for it ran out.
    case retry

    public var description: String {
      switch self {
      case .drift(let keys): "drift on the air (\(keys.joined(separator: ", ")))"
      case .retry: "retry after backoff"
      }
    }

    /// The row states this reason reopens.
    public var states: Set<DeviceState> {
      switch self {
      case .drift: [.compliant, .verified]
      case .retry: [.failed]
      }
    }
  }

  /// Which of this pass's due devices (address → decision) to reopen, given the run's rows (by address) and
  /// this gateway's schedule. A device not in the run yet needs none (joining adds it as pending); a wrong
  /// password is never reopened.
  public static func reopenings(
    due: [(address: String, decision: ReconcileLedger.Decision)], rows: [String: JournalDevice],
    ledger: ReconcileLedger
  ) -> [String: Reopening] {
    var result: [String: Reopening] = [:]
    for (address, decision) in due {
      guard let row = rows[address] else { continue }
      switch (decision, row.state) {
      case (.airDrift(let keys), .compliant), (.airDrift(let keys), .verified):
        result[address] = .drift(keys)
      case (_, .failed) where row.failureKind != .wrongPassword && Self.knowsFailure(of: address, row, ledger):
        result[address] = .retry
      default: break
      }
    }
    return result
  }

  /// Whether this gateway's schedule knows the failure a failed row records, so the device is due because
  /// its wait ran out: failures in a row, or a wait for a neighbour's bootloader (`shadowed`, no failure).
  static func knowsFailure(of address: String, _ row: JournalDevice, _ ledger: ReconcileLedger) -> Bool {
    guard let entry = ledger.devices[address] else { return false }
    return entry.failures > 0 || (row.failureKind == .bootloaderAtAddress && entry.retryAt != nil)
  }

  /// How another gateway left a device.
  public enum Elsewhere: Sendable, Equatable {
    /// Compliant, or written and verified (`wrote`).
    case converged(wrote: Bool)
    case failed(wrongPassword: Bool, detail: String)
    /// Its link reached a neighbour's DFU bootloader: not the device's failure (`ReconcileLedger.shadowed`).
    case shadowed(detail: String)
    /// Found not selected by the profile once connected to (its model or firmware).
    case notSelected
  }

  /// The due devices (`due`) this gateway did not visit (`visited`) that the run's rows show settled by
  /// another gateway, skipped ones included (not selected once connected to). Still-open devices are left
  /// out: the next pass finds them again.
  public static func settledElsewhere(due: [String], visited: Set<String>, rows: [String: JournalDevice])
    -> [String: Elsewhere]
  {
    var result: [String: Elsewhere] = [:]
    for address in due where !visited.contains(address) {
      guard let row = rows[address] else { continue }
      switch row.state {
      case .compliant: result[address] = .converged(wrote: false)
      case .verified: result[address] = .converged(wrote: true)
      case .failed where row.failureKind == .bootloaderAtAddress:
        result[address] = .shadowed(detail: row.detail ?? "a DFU bootloader answers at this address")
      case .failed:
        result[address] = .failed(wrongPassword: row.failureKind == .wrongPassword, detail: row.detail ?? "failed")
      case .skipped: result[address] = .notSelected
      case .pending, .working, .planned: break
      }
    }
    return result
  }
}
