import BeaconCore
import Foundation

extension SimulatedCentral {
  /// A simulated central whose KBeacon-kind devices run the simulated KBeacon (FEA0 protocol engine,
  /// buttonless DFU) behind their GATT servers; other devices get the generic database. The devices can
  /// drop their own links (wrong password, bootloader entry) through the central's `gattLinks`. Each scan
  /// advertises every KBeacon from its configuration at the scan's start (`restored` state included), so
  /// a scan after a configuration write shows the new frames, name, interval and connectable flag. The
  /// adapter holds `fleet.adapter.links` links at once (default 5).
  public static func withKBeacons(
    fleet: SimulatedFleet, name: String = Simulation.adapterName, pace: SimulationPace = .realTime,
    restored: [BluetoothAddress: SimulatedKBeaconSnapshot] = [:],
    restoredText: [BluetoothAddress: SimulatedATCommands] = [:], linkModel: LinkModel? = nil,
    now: @escaping @Sendable () -> UInt32 = { UInt32(clamping: Int(Date().timeIntervalSince1970)) }
  ) -> (central: SimulatedCentral, kbeacons: KBeaconSimulation) {
    let model = linkModel ?? (pace == .unpaced ? .instant : LinkModel())
    let kbeacons = KBeaconSimulation(
      fleet: fleet, model: model, restored: restored, restoredText: restoredText, now: now)
    let links =
      fleet.adapter?.links.map { SimulatedGATTLinks(model: model, maxLinks: $0) } ?? SimulatedGATTLinks(model: model)
    kbeacons.setLinkDropper { address in await links.disconnect(address) }
    let bootloaders = SimulatedBootloaders(model: model)
    // Every KBeacon's buttonless 01 brings up its bootloader on this central (a later
    // `kbeacons.setBootloaderHook` replaces this for devices made after it).
    kbeacons.hostBootloaders(in: bootloaders)
    let central = SimulatedCentral(
      fleet: fleet, name: name, pace: pace, gattLinks: links,
      gattServerFactory: { device in kbeacons.server(for: device) }, bootloaders: bootloaders,
      advertisedDevices: { await kbeacons.advertisedDevices() }, beforeConnect: { await kbeacons.refresh($0) },
      prepare: { await kbeacons.bringBackKeptBootloaders() })
    return (central, kbeacons)
  }
}
