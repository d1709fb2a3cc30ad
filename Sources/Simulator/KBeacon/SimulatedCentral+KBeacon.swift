import BeaconCore
import Foundation
import NordicDFU

extension SimulatedCentral {
  /// A simulated central whose KBeacon-kind devices run the simulated KBeacon (FEA0 protocol engine,
  /// buttonless DFU) behind their GATT servers; other devices get the generic database. The devices can
  /// drop their own links (wrong password, bootloader entry) through the central's `gattLinks`.
  public static func withKBeacons(
    fleet: SimulatedFleet, name: String = Simulation.adapterName, pace: SimulationPace = .realTime,
    restored: [BluetoothAddress: SimulatedKBeaconSnapshot] = [:],
    now: @escaping @Sendable () -> UInt32 = { UInt32(clamping: Int(Date().timeIntervalSince1970)) }
  ) -> (central: SimulatedCentral, kbeacons: KBeaconSimulation) {
    let kbeacons = KBeaconSimulation(fleet: fleet, model: pace == .unpaced ? .instant : LinkModel(), restored: restored, now: now)
    let links = SimulatedGATTLinks(model: pace == .unpaced ? .instant : LinkModel())
    kbeacons.setLinkDropper { address in await links.disconnect(address) }
    let bootloaders = SimulatedBootloaders(model: pace == .unpaced ? .instant : LinkModel())
    let central = SimulatedCentral(
      fleet: fleet, name: name, pace: pace, gattLinks: links,
      gattServerFactory: { device in kbeacons.server(for: device) }, bootloaders: bootloaders,
      prepareConnect: { device in
        guard let kbeacon = kbeacons.kbeacon(device.address) else { return }
        await kbeacon.setBootloaderHook { address, bootloaderName in
          await enterBootloader(kbeacon, device: device, name: bootloaderName, bootloaders: bootloaders)
        }
      })
    return (central, kbeacons)
  }

  /// The KBeacon jumped (buttonless `01`, nordic-dfu.md §2.2): its bootloader comes up at address +1 with
  /// the device's `dfu` facts and faults. A completed update leaves the device reporting the new
  /// application's version in `ver` (`KKMFirmwareVersion`), saved with its state; a timeout leaves it as
  /// it was.
  static func enterBootloader(
    _ kbeacon: SimulatedKBeacon, device: SimulatedDevice, name: String?, bootloaders: SimulatedBootloaders
  ) async {
    let current = await kbeacon.firmwareVersion.flatMap(KKMFirmwareVersion.fwVersion(text:))
    await bootloaders.enter(application: device.address, name: name, section: device.dfu, applicationVersion: current) { exit in
      if case .newApplication(let version?) = exit {
        await kbeacon.installFirmware(version: KKMFirmwareVersion.text(fwVersion: version))
      }
    }
  }
}
