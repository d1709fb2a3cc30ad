import CampaignPipeline
import Firmware
import FirmwareIO
import Fleet
import NordicDFU

/// `reconcile --firmware latest|VERSION --catalog URL`: the firmware a reconciled site is kept on. After a
/// profile's pass, each of its devices that is converged (verified under the profile's current content) and
/// whose firmware is due (`ReconcileLedger.firmwareDecision`) goes through the same catalogue campaign as
/// `dfu update --firmware` (`FirmwareCampaignPlan`: survey, the packages resolved and verified before any
/// device enters its bootloader, neighbouring addresses apart, `ver` read back from the updated device).
///
/// Choices [I]:
/// - configuration first, firmware second: a device whose configuration visit failed, or that refused the
///   password, is not connected to for its firmware (its backoff, or the profile's next change, comes first);
///   a wrong password on the firmware link is never retried either;
/// - the password is the profile's new one when it rotates passwords (a converged device has it), else
///   its current one;
/// - the battery floor is `--min-battery`, else `dfu update`'s default of 30 %, judged on the window's
///   advertisement before any connection (a device under it stays due: `skipped-battery`);
/// - a catalogue or package that cannot be had before the pass (`firmware-error`) holds every firmware pass back,
///   backing off as a failing device does; one fetched during the pass, for a device the survey did not read
///   (`CatalogueTakeoverRoute`), fails only that device, which backs off as any failing device does;
/// - `--maintenance-window HH:MM-HH:MM` (a `DailySpan`): firmware only inside it; without it, firmware
///   whenever a device is due. The window is asked before each device's turn, so one that closes mid-pass
///   starts nothing more (those devices are `skipped-maintenance`, still due), while a transfer under way
///   finishes: cut short, it would leave its device in the bootloader until the next window.
///   `--quiet-hours` holds firmware back as it holds every link back;
/// - a device whose check found its neighbour's bootloader at its address (the neighbour below failed after
///   its jump) is not failing: it waits `--bootloader-timeout` (130 s), and the neighbour waits for its turn
///   (`ReconcileLedger.firmwareShadowed`).
struct ReconcileFirmware: Sendable {
  /// As given: `latest` or a version like V5.14.
  var firmware: String
  var wanted: FirmwareWanted
  var location: CatalogueLocation
  var cache: FirmwareCache
  var offline: Bool
  /// The `--package` checks every downloaded package passes (hardware version 52 by default, --public-key …).
  var expectations: DeviceExpectations
  var maintenance: DailySpan?
  /// `--bootloader-timeout`: how long a bootloader left by a failed update may answer at its address + 1
  /// (`ReconcileLedger.firmwareShadowed`).
  var bootloaderTimeout = Self.defaultBootloaderTimeout
  /// `--rollout`: the stages the firmware goes out in (`ReconcileRollout`), and `--resume-rollout`.
  var rollout: RolloutPlan?
  var resumeRollout = false
  /// `dfu update` with this firmware source, adapter and state directory: with `--resume RUN` it finishes a
  /// firmware run of this gateway's (`firmware-in-bootloader`).
  var finishArguments: [String] = []
  /// [I] Nordic's SDK bootloaders give up after 120 s without a connection or a write; 10 s more for the
  /// last activity's own time.
  static let defaultBootloaderTimeout = 130.0
  /// `dfu update`'s default floor when `--min-battery` is not given.
  static let defaultMinimumBattery = 30

  /// The battery floor firmware waits for: `--min-battery`, else 30 %; nil for `--min-battery 0` (no floor,
  /// unknown batteries included, as `dfu update` has it).
  static func batteryFloor(_ minBattery: Int?) -> Int? {
    let floor = minBattery ?? defaultMinimumBattery
    return floor == 0 ? nil : floor
  }

  /// What a device's firmware was checked under, in the ledger: the catalogue's place and the version asked
  /// for (the same text as the campaign's run recipe).
  var source: String { "\(location)\nfirmware \(firmware)" }

  /// The campaign for these devices of one profile.
  /// A neighbour shadowed by a failed device's bootloader is deferred by the ledger
  /// (`ReconcileLedger.firmwareShadowed`), not held inside the pass: no quarantine.
  func plan(addresses: [String], passwords: ApplyCampaign.Passwords, minimumBattery: Int?) -> FirmwareCampaignPlan {
    var plan = FirmwareCampaignPlan(
      firmware: .catalogue(firmware: firmware, wanted: wanted, location: location, cache: cache, offline: offline),
      expectations: expectations, password: passwords.new ?? passwords.current, addresses: addresses,
      minimumBattery: minimumBattery ?? Self.defaultMinimumBattery)
    plan.bootloaderQuarantine = nil
    return plan
  }
}
