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
/// - configuration first, firmware second: a device whose configuration visit failed is not updated in
///   that pass (its backoff holds it back);
/// - the password is the profile's new one when it rotates passwords (a converged device has it), else
///   its current one;
/// - the battery floor is `--min-battery`, else `dfu update`'s default of 30 %;
/// - `--maintenance-window HH:MM-HH:MM` (a `DailySpan`): firmware only inside it; without it, firmware
///   whenever a device is due. `--quiet-hours` holds firmware back as it holds every link back.
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
  /// `dfu update`'s default floor when `--min-battery` is not given.
  static let defaultMinimumBattery = 30

  /// What a device's firmware was checked under, in the ledger: the catalogue's place and the version asked
  /// for (the same text as the campaign's run recipe).
  var source: String { "\(location)\nfirmware \(firmware)" }

  /// The campaign for these devices of one profile.
  func plan(addresses: [String], passwords: ApplyCampaign.Passwords, minimumBattery: Int?) -> FirmwareCampaignPlan {
    FirmwareCampaignPlan(
      firmware: .catalogue(firmware: firmware, wanted: wanted, location: location, cache: cache, offline: offline),
      expectations: expectations, password: passwords.new ?? passwords.current, addresses: addresses,
      minimumBattery: minimumBattery ?? Self.defaultMinimumBattery)
  }
}
