import BeaconCore
import BlueZ
import Testing

@testable import Simulator

/// What the commands ask of any `Central` instead of downcasting it: whether its scans take real time,
/// and waiting for its scans to be off.
@Suite("Central capabilities", .timeLimit(.minutes(1)))
struct CentralCapabilityTests {
  /// A central that only scans nothing: it gets the protocol's defaults.
  struct Silent: Central {
    let name = "silent"
    func scan(_ parameters: ScanParameters) -> AsyncThrowingStream<AdvertisingReport, any Error> {
      AsyncThrowingStream { $0.finish() }
    }
    func connect(to address: BluetoothAddress, type: AddressType, timeout: Duration) async throws -> any ATTBearer {
      throw LinkError(.unknownDevice, peer: address)
    }
  }

  @Test func onlyAnUnpacedSimulatorScansOnSimulatedTime() async {
    #expect(!SimulatedCentral(fleet: DemoFleet.fleet, pace: .unpaced).scansInRealTime)
    #expect(SimulatedCentral(fleet: DemoFleet.fleet, pace: .realTime).scansInRealTime)
    #expect(BlueZCentral(adapter: "hci0").scansInRealTime)
    #expect(Silent().scansInRealTime)
  }

  @Test func stopScansReturnsWhenNothingScans() async {
    let centrals: [any Central] = [
      Silent(), BlueZCentral(adapter: "hci0"), SimulatedCentral(fleet: DemoFleet.fleet, pace: .unpaced),
    ]
    for central in centrals { await central.stopScans() }
  }
}
