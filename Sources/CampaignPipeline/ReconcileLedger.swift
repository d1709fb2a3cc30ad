import Foundation
import JSON

/// What `reconcile` remembers per device between passes, and the rule that says when a device is due
///: never verified against this profile's content (its `RunRecipe` text: the SHA-256 of the
/// profile and its inventory); drift visible on the air (`AirDrift`); its last connected check older than
/// `--recheck`. A device that failed waits out an exponential backoff (`backoff(failures:)`); one that refused
/// the password is never retried while the profile's content is the same (devices may lock out,
/// docs/protocols/kbeacon.md §14). One the profile turned out not to select once connected to (its model or
/// firmware: `Selection.rejection(model:firmware:)`) waits for the next `--recheck`, or for a change of the
/// profile's content, rather than being connected to again every window.
///
/// Air drift that a connected check found nothing to repair (the device was compliant while the air showed
/// it: a name the scan response did not carry, an interval class judged on few reports) is remembered as
/// `acceptedDrift`, so the same drift does not bring the device back pass after pass [I]: only a drift the
/// last check did not see makes it due.
///
/// Kept as JSON in the state directory beside the journal (`reconcile.json`) [I: the journal's runs already
/// hold every visit; this file holds only the schedule, so losing it costs one compliant re-check per device,
/// never a write]. Times are seconds since 1970.
public struct ReconcileLedger: Sendable, Codable, Equatable {
  public struct Entry: Sendable, Codable, Equatable {
    /// The profile content last verified (compliant or updated and read back), and when.
    public var fingerprint: String?
    public var verifiedAt: Double?
    /// Air drift present at the last verification, which the check found nothing to repair for.
    public var acceptedDrift: [String]?
    /// Failures in a row since the last verification, and when the device may be tried again.
    public var failures: Int = 0
    public var retryAt: Double?
    /// The profile content a wrong password was refused under: never retried while it is unchanged.
    public var refusedUnder: String?
    /// The profile content under which a connected check found the device not selected (its model or
    /// firmware), and when: not due again until `--recheck` has passed or the content changed. Optional, so a
    /// schedule written before it still reads.
    public var skippedUnder: String?
    public var skippedAt: Double?
    /// `--firmware` (`ReconcileLedger+Firmware`): the firmware source the device was last checked under, when,
    /// and the firmware failures in a row with the time of the next try. Optional, so a schedule written
    /// before them still reads.
    public var firmwareUnder: String?
    public var firmwareCheckedAt: Double?
    public var firmwareFailures: Int?
    public var firmwareRetryAt: Double?
    /// When the device was last heard, to within `heardResolution` (`ReconcileLedger+Departures`). Optional, so
    /// a schedule written before it still reads.
    public var heardAt: Double?

    public init() {}
  }

  /// Why a device is due, or why it is not.
  public enum Decision: Sendable, Equatable {
    case neverVerified
    case contentChanged
    case airDrift([String])
    case recheck
    case upToDate
    case backingOff(until: Double)
    case wrongPassword
    /// Not selected by the profile once connected to (its model or firmware), until this time.
    case notSelected(until: Double)

    public var isDue: Bool {
      switch self {
      case .neverVerified, .contentChanged, .airDrift, .recheck: true
      case .upToDate, .backingOff, .wrongPassword, .notSelected: false
      }
    }
  }

  /// The first retry waits `backoffBase` seconds, each later one twice as long, at most `backoffCap` [I: 30 s, 1 h].
  public static let backoffBase = 30.0
  public static let backoffCap = 3600.0

  public var devices: [String: Entry] = [:]
  /// `--rollout`: each firmware source's staged rollout (`ReconcileRollout`). Optional, so a schedule written
  /// before rollouts still reads.
  public var rollouts: [String: ReconcileRollout]?

  public init() {}

  public static func backoff(failures: Int, base: Double = backoffBase) -> Double {
    guard failures > 0 else { return 0 }
    return min(backoffCap, base * pow(2, Double(min(failures - 1, 30))))
  }

  /// Whether `address` is due under the profile content `fingerprint`, given the drift its advertisement
  /// shows now (`AuditDrift` keys as "scope key"), at `now`, with connected checks every `recheck` seconds.
  public func decision(_ address: String, fingerprint: String, drift: [String], now: Double, recheck: Double)
    -> Decision
  {
    let entry = devices[address] ?? Entry()
    if entry.refusedUnder == fingerprint { return .wrongPassword }
    if entry.skippedUnder == fingerprint, let skippedAt = entry.skippedAt, now - skippedAt < recheck {
      return .notSelected(until: skippedAt + recheck)
    }
    if let retryAt = entry.retryAt, retryAt > now { return .backingOff(until: retryAt) }
    guard let verifiedAt = entry.verifiedAt, let verified = entry.fingerprint else { return .neverVerified }
    if verified != fingerprint { return .contentChanged }
    let fresh = Set(drift).subtracting(entry.acceptedDrift ?? [])
    if !fresh.isEmpty { return .airDrift(drift.filter(fresh.contains)) }
    if now - verifiedAt >= recheck { return .recheck }
    return .upToDate
  }

  /// A connected check found the device as the profile wants it (written now, or already so).
  public mutating func verified(_ address: String, fingerprint: String, drift: [String], now: Double, wrote: Bool) {
    // The configuration's part of the entry starts afresh; its firmware part is kept.
    var entry = devices[address] ?? Entry()
    (entry.fingerprint, entry.verifiedAt) = (fingerprint, now)
    (entry.failures, entry.retryAt, entry.refusedUnder) = (0, nil, nil)
    (entry.skippedUnder, entry.skippedAt) = (nil, nil)
    // A write repairs what the air showed; drift still seen on a compliant device is not the device's to repair.
    entry.acceptedDrift = wrote || drift.isEmpty ? nil : drift.sorted()
    devices[address] = entry
  }

  /// A connected check found the device not selected by the profile content `fingerprint` (its model or
  /// firmware): it is not due again before `--recheck` has passed, unless the content changes.
  public mutating func notSelected(_ address: String, fingerprint: String, now: Double) {
    var entry = devices[address] ?? Entry()
    (entry.skippedUnder, entry.skippedAt) = (fingerprint, now)
    devices[address] = entry
  }

  /// A visit failed: returns the seconds until the next try (nil: never, a wrong password).
  @discardableResult
  public mutating func failed(
    _ address: String, fingerprint: String, wrongPassword: Bool, now: Double, base: Double = backoffBase
  ) -> Double? {
    var entry = devices[address] ?? Entry()
    if wrongPassword {
      entry.refusedUnder = fingerprint
      devices[address] = entry
      return nil
    }
    entry.failures += 1
    let delay = Self.backoff(failures: entry.failures, base: base)
    entry.retryAt = now + delay
    devices[address] = entry
    return delay
  }

  /// The ledger in `stateDirectory`, or an empty one when there is none yet; an unreadable file is an error.
  public static func load(stateDirectory: String) throws -> ReconcileLedger {
    let path = Self.path(stateDirectory)
    guard let data = FileManager.default.contents(atPath: path) else { return ReconcileLedger() }
    do {
      return try JSONFileDecoder(file: path).decode(ReconcileLedger.self, from: data)
    } catch {
      throw CampaignFailure("\(error) (not a reconcile schedule: remove it to start the schedule afresh)")
    }
  }

  /// Written to a temporary file and renamed over the old one, so a kill leaves the old or the new.
  public func save(stateDirectory: String) throws {
    let text = try JSONValueEncoder().pretty(self)
    try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
    try Data(text.utf8).write(to: URL(fileURLWithPath: Self.path(stateDirectory)), options: .atomic)
  }

  public static func path(_ stateDirectory: String) -> String {
    (stateDirectory as NSString).appendingPathComponent("reconcile.json")
  }
}
