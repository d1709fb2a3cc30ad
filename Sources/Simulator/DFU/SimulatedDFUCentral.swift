import BeaconCore

/// A `Central` whose only peers are simulated DFU peripherals — what the BLE DFU path runs against until
/// the fleet's `SimulatedCentral` hosts DFU devices (its owner wires GATT links there). Scans report each
/// peripheral at the address it currently answers on, with its current advertising data, every `interval`.
public final class SimulatedDFUCentral: Central {
  public let name = "sim-dfu"
  public let peripherals: [SimulatedDFUPeripheral]
  let interval: Duration

  public init(peripherals: [SimulatedDFUPeripheral], advertisingInterval: Duration = .milliseconds(20)) {
    self.peripherals = peripherals
    self.interval = advertisingInterval
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

  public func connect(to address: BluetoothAddress, type: AddressType, timeout: Duration) async throws -> any ATTBearer {
    for p in peripherals where await p.advertisedAddress == address { return try await p.connect(to: address) }
    throw LinkError(.unknownDevice, peer: address, detail: "no simulated DFU device answers there")
  }
}
