import BeaconCore
import Foundation
import KBeacon
import NordicDFU

/// The bootloaders of a simulated fleet's KBeacons (docs/protocols/nordic-dfu.md §2.2, §2.6), each kept in its
/// device's saved state (`SimulatedBootloaderRecord`, `SimulatedKBeacon.keepBootloader(_:)`) from its entry to
/// its exit, so a later run of the simulation — a `--resume` after a `kill -9`, another gateway of a shared
/// site — finds the device still in its bootloader with the objects it executed.
extension SimulatedBootloaders {
  /// The simulated KBeacon jumped (buttonless `01`): its bootloader comes up at address +1 with the device's
  /// `dfu` facts and faults, its record saved first (the device's flash). A completed update leaves the device
  /// reporting the new application's version in `ver` (`KKMFirmwareVersion`), saved with its state and its
  /// record gone; a timeout leaves it as it was. The handlers hold the KBeacon weakly (its simulation holds
  /// it): the KBeacon's bootloader hook holds these bootloaders, whose session log holds the peripheral and so
  /// these handlers, and a strong capture made a cycle that outlived the simulation (LeakSanitizer,
  /// scripts/sanitizers).
  public func enter(_ kbeacon: SimulatedKBeacon, device: SimulatedDevice, name: String?) async {
    let record = SimulatedBootloaderRecord.entered(name: name ?? "DfuTarg")
    // Arriving from before its record is saved: a scan reading the record before the entry is made here must
    // not bring the stay back as a second copy.
    _ = arrive(device.address)
    defer { arrived(device.address) }
    await kbeacon.keepBootloader(record)
    await host(kbeacon, device: device, record: record, kept: nil)
  }

  /// Brings back the stay `record` describes, which an earlier run or another process left (the device's saved
  /// state), unless its timer has run out by now (the old application runs, `SimulatedBootloaderRecord`), it
  /// ended here with a new application, or this process entered that device's bootloader itself. A copy of the
  /// same stay brought back before is replaced when the record is newer (another process executed more since),
  /// and let go once the record has run out (another process's timer, which this copy's links kept resetting)
  /// unless this process is using the copy: it moved the stay on, or a link to it is open.
  public func resume(_ kbeacon: SimulatedKBeacon, device: SimulatedDevice, record: SimulatedBootloaderRecord) async {
    let application = device.address
    let timeout = (device.dfu ?? DFUSection()).configuration(applicationVersion: nil).inactivityTimeout
    let now = Date()
    let running = record.isRunning(at: now, timeout: timeout)
    if isInBootloader(application) {
      // A stay this process entered by a jump is its own; only a copy brought back gives way.
      guard broughtBack(application: application) else { return }
      let same = session(ofApplication: application) == record.session
      if same, running, record.lastActivity <= keptAt(application: application) ?? .min { return }
      // Run out in the record, but moved on or linked to here: its own timer, which saw that, decides.
      if same, !running, await inUse(application: application) { return }
      await forget(application: application)
    }
    guard running, !completed(record.session), arrive(application) else { return }
    defer { arrived(application) }
    guard !isInBootloader(application) else { return }
    await kbeacon.keepBootloader(record, save: false)
    let idle = timeout - record.remaining(at: now, timeout: timeout)
    await host(kbeacon, device: device, record: record, kept: (record.command, record.image, idle, record.lastActivity))
  }

  private func host(
    _ kbeacon: SimulatedKBeacon, device: SimulatedDevice, record: SimulatedBootloaderRecord,
    kept: (command: [UInt8], image: [UInt8], idle: Duration, at: Int64)?
  ) async {
    let current = await kbeacon.firmwareVersion.flatMap(KKMFirmwareVersion.fwVersion(text:))
    var section = device.dfu ?? DFUSection()
    if kept != nil { section.faults = nil }
    let progressed: @Sendable ([UInt8], [UInt8]) async -> Void = { [weak kbeacon, weak self] command, image in
      var saved = record
      saved.command = command
      saved.image = image
      saved.lastActivity = SimulatedBootloaderRecord.milliseconds(Date())
      self?.saved(application: device.address, session: record.session, at: saved.lastActivity)
      await kbeacon?.keepBootloader(saved)
      await self?.progressObserver.withLock({ $0 })?(device.address, image.count)
    }
    let exited: @Sendable (SimulatedDFUPeripheral.BootloaderExit) async -> Void = { [weak kbeacon] exit in
      if case .newApplication(let version?) = exit {
        await kbeacon?.leaveBootloader(installing: KKMFirmwareVersion.text(fwVersion: version))
      } else {
        await kbeacon?.leaveBootloader(installing: nil)
      }
    }
    await enter(
      application: device.address, name: record.name, section: section, applicationVersion: current,
      session: record.session, kept: kept, onProgress: progressed, onExit: exited)
  }
}
