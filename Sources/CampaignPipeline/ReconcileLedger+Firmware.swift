/// `reconcile --firmware`: the ledger's rule for when a device's firmware is due for a check. A check
/// connects, reads `ver` and installs the catalogue's release when it is newer (`FirmwareCampaignPlan`), so,
/// once the device is configured under its profile and in good standing, it is due when it was never checked under this firmware source (the catalogue's place and the
/// version asked for, `source`), or its last check is older than `--recheck` [I: the catalogue is read at
/// every check, so a release published between checks is installed at the next one, at most `--recheck`
/// later; reading every model's catalogue each window to learn of it sooner is left for later]. A failed check
/// backs off as a failed configuration visit does (`ReconcileLedger.backoff`), counted on its own.
extension ReconcileLedger {
  /// Why a device's firmware is due for a check, or why it is not.
  public enum FirmwareDecision: Sendable, Equatable {
    /// Not configured under this profile's content, or its visit failed or it refused the password: its
    /// configuration comes first (a refused password is never tried again, for firmware either).
    case waitsForConfiguration
    case neverChecked
    case sourceChanged
    case recheck
    case checked
    case backingOff(until: Double)

    public var isDue: Bool {
      switch self {
      case .neverChecked, .sourceChanged, .recheck: true
      case .waitsForConfiguration, .checked, .backingOff: false
      }
    }
  }

  /// Whether `address`, configured under the profile content `fingerprint`, is due for a firmware check under
  /// `source` at `now`, with checks every `recheck` seconds.
  public func firmwareDecision(
    _ address: String, fingerprint: String, source: String, now: Double, recheck: Double
  ) -> FirmwareDecision {
    let entry = devices[address] ?? Entry()
    guard entry.fingerprint == fingerprint, entry.verifiedAt != nil, entry.failures == 0, entry.refusedUnder == nil
    else { return .waitsForConfiguration }
    if let retryAt = entry.firmwareRetryAt, retryAt > now { return .backingOff(until: retryAt) }
    guard let checkedAt = entry.firmwareCheckedAt, let under = entry.firmwareUnder else { return .neverChecked }
    if under != source { return .sourceChanged }
    return now - checkedAt >= recheck ? .recheck : .checked
  }

  /// A check ended with the device on the firmware the source offers (updated now, or already current), or
  /// with a reason it is not for this source (no release for its hardware, a battery under the floor).
  public mutating func firmwareChecked(_ address: String, source: String, now: Double) {
    var entry = devices[address] ?? Entry()
    (entry.firmwareUnder, entry.firmwareCheckedAt) = (source, now)
    (entry.firmwareFailures, entry.firmwareRetryAt) = (nil, nil)
    devices[address] = entry
  }

  /// A check failed: returns the seconds until the next try.
  @discardableResult
  public mutating func firmwareFailed(_ address: String, now: Double, base: Double = backoffBase) -> Double {
    var entry = devices[address] ?? Entry()
    let failures = (entry.firmwareFailures ?? 0) + 1
    let delay = Self.backoff(failures: failures, base: base)
    (entry.firmwareFailures, entry.firmwareRetryAt) = (failures, now + delay)
    devices[address] = entry
    return delay
  }
}
