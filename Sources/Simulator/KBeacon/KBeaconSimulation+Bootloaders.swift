import BeaconCore

/// The KBeacons' DFU bootloaders as the saved state keeps them (`SimulatedBootloaderRecord`): a run of the
/// simulation brings back the stays an earlier one left, and on a site several gateway processes share, each
/// scan and each link lines this process's bootloaders up with the shared state (docs/protocols/nordic-dfu.md §2.6).
extension KBeaconSimulation {
  /// Brings back, once, every bootloader stay the state this simulation started from holds and whose timer has
  /// not run out (`SimulatedCentral.prepare`: before the first scan or link).
  public func bringBackKeptBootloaders() async {
    guard
      keptBootloadersBack.withLock({ done in
        defer { done = true }
        return !done
      })
    else { return }
    await matchBootloaders(restored)
  }

  /// Lines this process's bootloaders up with the saved `snapshots`: a stay a snapshot holds is brought back
  /// (`SimulatedBootloaders.resume`, which skips a stay already running here, one ended here with a new
  /// application and one whose timer ran out); a stay brought back here that the snapshot no longer holds was
  /// ended by another process — a gateway that finished the update — and this copy lets go. A stay this process
  /// entered itself is never let go so (a snapshot read just before its record was saved lacks it). A copy whose
  /// record has run out in the file goes too, unless this process is using it (`SimulatedBootloaders.resume`).
  func matchBootloaders(_ snapshots: [BluetoothAddress: SimulatedKBeaconSnapshot]) async {
    guard let bootloaders = hosted.withLock({ $0 }) else { return }
    for (address, snapshot) in snapshots {
      let copy = bootloaders.broughtBack(application: address)
      guard snapshot.bootloader != nil || copy,
        let entry = fleet.devices.first(where: { $0.address == address }), entry.kind.isKBeacon
      else { continue }
      if let record = snapshot.bootloader {
        guard let kbeacon = kbeacon(address) else { continue }
        await bootloaders.resume(kbeacon, device: entry, record: record)
      } else {
        await bootloaders.forget(application: address)
      }
    }
  }
}
