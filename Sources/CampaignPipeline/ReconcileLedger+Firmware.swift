import BeaconCore

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

  /// Whether `address`'s firmware failed here (the failures in a row this schedule counts) and its backoff has
  /// run by `now`: `reconcile` may try it again — a device its failed update left in its bootloader included,
  /// which no check finds due, as its application is silent (`ReconcileLoop+FinishInBootloader`).
  public func firmwareRetryDue(_ address: String, now: Double) -> Bool {
    guard let entry = devices[address], (entry.firmwareFailures ?? 0) > 0 else { return false }
    return (entry.firmwareRetryAt ?? 0) <= now
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

  /// A check found a neighbour's bootloader answering at `address` (`BootloaderAtAddress`: the device one below
  /// failed an update after its jump, and its bootloader answers at its address + 1 until its inactivity
  /// timeout). Not this device's failure: it is tried again after `timeout` seconds, its failure count
  /// untouched; and the neighbour below, if its own firmware failed, is not tried again before this device's
  /// turn has come and gone (another `timeout` after it), or its next failed jump would shadow this device
  /// again, pass after pass, their backoffs in step. Returns the seconds until this device's next try.
  @discardableResult
  public mutating func firmwareShadowed(_ address: String, now: Double, timeout: Double) -> Double {
    var entry = devices[address] ?? Entry()
    entry.firmwareRetryAt = now + timeout
    devices[address] = entry
    holdBackNeighbourBelow(address, now: now, timeout: timeout)
    return timeout
  }

  /// The configuration pass's `firmwareShadowed`: a visit for the profile found a neighbour's bootloader
  /// answering at `address` (`BootloaderAtAddress`). Not this device's failure: its failure count and backoff
  /// are untouched, it is tried again after `timeout` seconds, and a neighbour below whose firmware failed
  /// waits until this device's turn has come and gone, as in `firmwareShadowed`. Returns the seconds until
  /// the next try.
  @discardableResult
  public mutating func shadowed(_ address: String, now: Double, timeout: Double) -> Double {
    var entry = devices[address] ?? Entry()
    entry.retryAt = max(entry.retryAt ?? 0, now + timeout)
    devices[address] = entry
    holdBackNeighbourBelow(address, now: now, timeout: timeout)
    return timeout
  }

  /// The neighbour below `address`, if its own firmware failed, waits until `address`'s turn (`timeout`
  /// from `now`) has come and gone, so its next failed jump cannot shadow `address` again in step.
  private mutating func holdBackNeighbourBelow(_ address: String, now: Double, timeout: Double) {
    guard let below = Self.neighbourBelow(address), var neighbour = devices[below],
      (neighbour.firmwareFailures ?? 0) > 0
    else { return }
    neighbour.firmwareRetryAt = max(neighbour.firmwareRetryAt ?? 0, now + 2 * timeout)
    devices[below] = neighbour
  }

  /// The address whose bootloader comes up at `address`: the last octet one less, wrapping (no carry), as a
  /// no-bond Secure DFU bootloader takes its application's address + 1 (docs/protocols/nordic-dfu.md §2.2).
  public static func neighbourBelow(_ address: String) -> String? {
    guard let parsed = BluetoothAddress(address) else { return nil }
    let low = UInt8(truncatingIfNeeded: parsed.rawValue) &- 1
    return BluetoothAddress(rawValue: parsed.rawValue & ~0xFF | UInt64(low)).description
  }
}
