import BeaconCore
import NordicDFU
import Synchronization

/// A `Central` whose only peers are simulated DFU peripherals — for DFU tests without a fleet. The fleet's
/// `SimulatedCentral` hosts its KBeacons' bootloaders itself (`SimulatedBootloaders`). Scans report each peripheral at the address it
/// currently answers on, with its current advertising data, every `interval`.
///
/// Bridge for the fleet: `addBootloader(for:name:)` makes a bootloader appear at the application's address
/// +1 (e.g. from the simulated KBeacon's `bootloaderHook` after a buttonless `01`); `SimulatedCentral` can
/// fall back to `connect(to:)` here for addresses not in its fleet.
public final class SimulatedDFUCentral: Central {
  public let name = "sim-dfu"
  private let registry: Mutex<[SimulatedDFUPeripheral]>
  private let connectLog = Mutex<[BluetoothAddress]>([])
  let interval: Duration

  public init(peripherals: [SimulatedDFUPeripheral] = [], advertisingInterval: Duration = .milliseconds(20)) {
    self.registry = Mutex(peripherals)
    self.interval = advertisingInterval
  }

  public var peripherals: [SimulatedDFUPeripheral] { registry.withLock { $0 } }

  /// The address of every connect asked for, answered or not, in order (for tests).
  public var connects: [BluetoothAddress] { connectLog.withLock { $0 } }

  public func add(_ peripheral: SimulatedDFUPeripheral) { registry.withLock { $0.append(peripheral) } }

  /// A device whose application just jumped (docs/protocols/nordic-dfu.md §2.2): its bootloader now advertises at `application` +1
  /// (last octet, no carry) with `name` (default `DfuTarg`). Returns the new bootloader.
  @discardableResult
  public func addBootloader(
    for application: BluetoothAddress, name: String?, configuration: DFUTargetConfiguration = DFUTargetConfiguration(),
    model: LinkModel = .instant
  ) async -> SimulatedDFUPeripheral {
    let peripheral = SimulatedDFUPeripheral(
      address: application, target: SimulatedDFUTarget(configuration: configuration), model: model)
    if let name { await peripheral.setBootloaderName(name) }
    add(peripheral)
    return peripheral
  }

  public func scan(_ parameters: ScanParameters) -> AsyncThrowingStream<AdvertisingReport, any Error> {
    let peripherals = peripherals
    let interval = interval
    return AsyncThrowingStream { continuation in
      let task = Task {
        while !Task.isCancelled {
          for p in peripherals {
            let report = AdvertisingReport(
              address: await p.advertisedAddress, addressType: .random, kind: .connectable, rssi: -50,
              data: await p.advertisingData, timestamp: .now)
            continuation.yield(report)
          }
          try? await Task.sleep(for: interval)
        }
        continuation.finish()
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  public func connect(to address: BluetoothAddress, type: AddressType, timeout: Duration) async throws -> any ATTBearer
  {
    connectLog.withLock { $0.append(address) }
    for p in peripherals where await p.advertisedAddress == address { return try await p.connect(to: address) }
    throw LinkError(.unknownDevice, peer: address, detail: "no simulated DFU device answers there")
  }
}
