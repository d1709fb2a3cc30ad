import BeaconCore
import BlueZ
import Foundation
import Simulator

/// The live parts below `Central` that the low-level commands work with — `adapters`, `radio …` (raw
/// scans, advertising, L2CAP) and `sim serve` (devices served over real controllers) — made here, so the
/// composition root stays the one place BlueZ is wired in. Errors become one-line `CLIFailure`s.
extension CentralFactory {
  /// A `BlueZCentral` on the named adapter, for commands that need its BlueZ-only calls (`openL2CAP`,
  /// `resolvedBackend`).
  static func bluezCentral(_ adapter: String, scanBackend: ScanBackend = .auto) -> BlueZCentral {
    BlueZCentral(adapter: adapter, scanBackend: scanBackend)
  }

  /// Every local controller (`adapters`).
  static func adapters() throws -> [Adapter] {
    do { return try Adapter.all() } catch { throw liveFailure(error) }
  }

  /// The adapter's facts (index, public address), looked up with `Adapter.named`.
  static func adapter(_ name: String) throws -> Adapter {
    do { return try Adapter.named(name) } catch { throw liveFailure(error) }
  }

  /// HCI advertising on the adapter (legacy or extended commands, whichever it supports).
  static func advertiser(on adapter: String) async throws -> HCIAdvertiser {
    do { return try await HCIAdvertiser(adapter: try Adapter.named(adapter)) } catch { throw liveFailure(error) }
  }

  /// An L2CAP LE listening socket on the adapter's ATT channel (CID 4).
  static func listener(on adapter: String) throws -> L2CAPListener {
    do { return try L2CAPListener(adapter: try Adapter.named(adapter)) } catch { throw liveFailure(error) }
  }

  /// `sim serve`: each fleet device on its controller (`ServedDevice`), as served — with the controller's
  /// address, or its own random one (`ServedAdvertising.device(_:servedAs:)`; a KBeacon's auth involves
  /// its MAC) — answering with the same GATT servers as `--adapter sim` (KBeacon kinds with the simulated
  /// KBeacon, which can drop its served link after a wrong password or a reset), and playing its DFU
  /// bootloader on the same controller (`SimulatedBootloaders`, instant links: the real link has its own
  /// timing).
  static func servedDevices(
    _ assigned: [(adapter: String, device: SimulatedDevice)], connectableReannounce: Duration?
  ) throws -> [ServedDevice] {
    let served = try assigned.map { pair in
      (
        adapter: pair.adapter, fleetAddress: pair.device.address,
        device: ServedAdvertising.device(pair.device, servedAs: try Self.adapter(pair.adapter).address)
      )
    }
    let kbeacons = KBeaconSimulation(
      fleet: SimulatedFleet(devices: served.map(\.device)), now: { UInt32(clamping: Int(Date().timeIntervalSince1970)) }
    )
    let links = ServedLinks()
    kbeacons.setLinkDropper { address in await links.drop(address) }
    let bootloaders = SimulatedBootloaders(model: .instant)
    kbeacons.hostBootloaders(in: bootloaders)
    return served.map {
      ServedDevice(
        $0.device, on: $0.adapter, fleetAddress: $0.fleetAddress, connectableReannounce: connectableReannounce,
        links: links, bootloaders: bootloaders, advertised: { device in await kbeacons.advertisedDevice(device) },
        makeServer: { device in kbeacons.server(for: device) })
    }
  }
}
