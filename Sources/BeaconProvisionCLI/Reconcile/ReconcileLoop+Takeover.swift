import BeaconCore
import Fleet
import FleetIO

/// A device another gateway left in its DFU bootloader: the gateway died (or stopped past its lease) in the
/// middle of the transfer, so the device's application is silent and only its bootloader advertises, with the
/// name this tool gave it (`BootloaderName`). `reconcile` only works on the devices it hears, so without this
/// such a device waited until its bootloader timed out (about two minutes on the simulated KBeacons) and its
/// application was heard again — or for good, where the old application is gone.
struct BootloaderTakeover: Sendable {
  /// The device's (application's) address.
  var device: String
  /// The window's record of its bootloader.
  var bootloader: DeviceRecord
}

extension ReconcileLoop {
  /// [I] The devices heard only as their bootloader this window (`heardOnlyAsBootloaders`, by device address)
  /// that `run`, the profile's firmware run on the shared journal, holds a row for that a visit left
  /// mid-transfer (`JournalDevice.isCutShortMidTransfer`). The row is the proof the device is the profile's:
  /// a firmware run is keyed by the profile's fingerprint. Each goes into the pass as a named device heard only
  /// as its bootloader; the pipeline makes it a target on the shared run (`CampaignPipeline.takeOver`) and
  /// the claim waits while a live gateway holds its lease. Takeovers skip what a device's first check waits
  /// for (the ledger's schedule, the battery floor its bootloader does not advertise, rollout admission: it
  /// was admitted when its transfer began) but keep the quiet hours, the maintenance window and the hourly
  /// budget, which serves them first. A journal that does not answer gives none (the next window asks again).
  func bootloaderTakeovers(_ silent: [String: DeviceRecord], run: String, site: PostgresJournal) async
    -> [BootloaderTakeover]
  {
    var found: [BootloaderTakeover] = []
    for (device, record) in silent.sorted(by: { $0.key < $1.key }) {
      guard let row = try? await site.device(run: run, address: device), row.isCutShortMidTransfer else { continue }
      found.append(BootloaderTakeover(device: device, bootloader: record))
    }
    return found
  }

  /// The records a pass's campaign selects from: the chosen devices', then each takeover's bootloader unless
  /// it shares its address with a chosen device (the next device's application: that record holds the
  /// bootloader's name too, `DeviceRecord.allNames`), so no address is selected twice.
  static func records(_ chosen: [ReconcileDue.Candidate], _ taking: [BootloaderTakeover]) -> [DeviceRecord] {
    let addresses = Set(chosen.map(\.address))
    return chosen.map(\.record) + taking.map(\.bootloader).filter { !addresses.contains($0.address.description) }
  }
}
