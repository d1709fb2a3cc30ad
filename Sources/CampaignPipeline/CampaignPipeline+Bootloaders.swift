import BeaconCore
import Fleet
import NordicDFU

/// A firmware campaign's named devices that the scan did not hear, but whose DFU bootloader it did: a
/// bootloader advertising the name this tool gives it before the jump (`BootloaderName`: `Dfu`, the device's
/// address, the attempt). Some earlier run's transfer broke off and left the device waiting there — for good,
/// if its old application is gone. A new run cannot finish it: it does not know the run's package choice,
/// and a bootloader advertising at the next device's address is never taken for a device it was not told
/// about. The run that left it can (`--resume`), and is named where this journal holds it.
extension CampaignPipeline {
  /// Says `selected`, then, for a firmware campaign, each named device not heard whose bootloader was, with the
  /// run that left it and whether this command with `--resume` finishes that run (the same package or
  /// catalogue, on this machine's journal: a shared run is resumed with `--journal`, which the command line
  /// printed does not carry). A firmware campaign's targets heard only as such a bootloader (a resume's) are
  /// marked `waitingInBootloader`. On a named shared run, a named device its row in that run left mid-transfer
  /// (another gateway's visit, cut short) becomes a target too (`takeOver`).
  func announceSelection(
    _ selection: inout CampaignSelection, plan: some CampaignPlan, records: [DeviceRecord],
    resources: CampaignResources
  ) async {
    emit(.selected(count: selection.targets.count, notSeen: selection.notSeen.count))
    guard plan.kind == "dfu" else { return }
    let unheard = Set(selection.targets.map(\.address.description)).subtracting(records.map(\.address.description))
    let heard = Self.bootloadersHeard(of: unheard.union(selection.notSeen), in: records)
    selection.waitingInBootloader = unheard.intersection(heard.keys)
    var waiting = heard.filter { selection.notSeen.contains($0.key) }
    guard !waiting.isEmpty else { return }
    await takeOver(&waiting, into: &selection, resources: resources)
    let recipe = try? await plan.recipe().text
    for (device, record) in waiting.sorted(by: { $0.key < $1.key }) {
      let left = await Self.runLeaving(device, journal: resources.journal)
      emit(
        .waitingInBootloader(
          address: device, bootloader: record.address.description, name: record.name ?? "", run: left?.id,
          resumable: resources.coordinator == nil && left != nil && left?.recipe == recipe))
    }
  }

  /// [I] On a named shared run (`--journal` with `--run`, reconcile's firmware runs), the devices of `waiting`
  /// whose row in that run a visit cut short mid-transfer become targets, marked `waitingInBootloader`, and leave
  /// `waiting` and `notSeen`: a gateway that died (or stopped) mid-transfer left the device in its bootloader,
  /// its application silent, and this gateway finishes it — claimed once the other's lease allows, the
  /// package chosen from the shared registry's identity (`CatalogueTakeoverRoute`), the transfer resumed at
  /// the bootloader that advertises the device's name. While the other gateway is alive and holds the lease
  /// (its transfer under way) the claim waits, and ends `done` when that transfer ends. The target carries
  /// the address type the run journalled (random, the KKM default, when none was) and the bootloader's RSSI
  /// as this gateway's sighting. A device whose row is not cut short mid-transfer (`isCutShortMidTransfer`: a
  /// row that ended `failed` is that gateway's to retry after its backoff, and no claim hands it out), or a
  /// journal that does not answer, keeps the report `waitingInBootloader` gives.
  func takeOver(
    _ waiting: inout [String: DeviceRecord], into selection: inout CampaignSelection, resources: CampaignResources
  ) async {
    guard resources.coordinator != nil, let run = selection.sharedRun else { return }
    let before = selection.targets.count
    for (device, record) in waiting.sorted(by: { $0.key < $1.key }) {
      guard let row = try? await resources.journal.device(run: run, address: device), row.isCutShortMidTransfer,
        let address = BluetoothAddress(device)
      else { continue }
      waiting[device] = nil
      selection.notSeen.removeAll { $0 == device }
      selection.waitingInBootloader.insert(device)
      selection.targets.append(
        Target(
          address: address, addressType: row.addressType ?? .random,
          rssi: Target.heardRSSI(record.rssi.latest)))
      emit(
        .takingOverFromBootloader(
          address: device, bootloader: record.address.description, name: record.name ?? "", run: run))
    }
    if selection.targets.count > before { selection.targets.sort { $0.address < $1.address } }
  }

  /// Every bootloader of ours heard in `records`, by the address of the device that entered it, from the
  /// names they advertise (`BootloaderName`): any name heard at a record's address (`DeviceRecord.allNames`), as
  /// the bootloader shares its address with the next device's application. The record's `name` is made the
  /// bootloader's, for the reports. Where one device's bootloader was heard under two names (two attempts),
  /// the later record's is kept. `reconcile` weighs these for takeovers; a campaign, for its named devices.
  public static func bootloadersHeard(in records: [DeviceRecord]) -> [String: DeviceRecord] {
    var heard: [String: DeviceRecord] = [:]
    for record in records {
      for name in record.allNames {
        guard let device = BootloaderName.device(named: name)?.description else { continue }
        var bootloader = record
        bootloader.name = name
        heard[device] = bootloader
      }
    }
    return heard
  }

  /// The bootloaders heard for `devices` (by device address): `bootloadersHeard(in:)`, kept to those devices.
  static func bootloadersHeard(of devices: Set<String>, in records: [DeviceRecord]) -> [String: DeviceRecord] {
    bootloadersHeard(in: records).filter { devices.contains($0.key) }
  }

  /// The firmware run whose record of `device` is the newest among this journal's last 50 firmware runs, when
  /// that record left it mid-transfer and unfinished (a later run that updated it, or failed it before its
  /// transfer, is the newer record: nil). One read per run, made only when a bootloader of ours is heard for a
  /// named device the scan did not hear. Nil too when the journal cannot be read.
  public static func runLeaving(_ device: String, journal: any CampaignJournal) async -> JournalRun? {
    guard let runs = try? await journal.runs() else { return nil }
    var newest: (run: JournalRun, row: JournalDevice)?
    for run in runs.filter({ $0.kind == "dfu" }).sorted(by: { $0.startedAt > $1.startedAt }).prefix(50) {
      guard let row = try? await journal.device(run: run.id, address: device) else { continue }
      if newest.map({ row.updatedAt > $0.row.updatedAt }) ?? true { newest = (run, row) }
    }
    guard let newest, newest.row.isLeftMidTransfer else { return nil }
    return newest.run
  }
}
