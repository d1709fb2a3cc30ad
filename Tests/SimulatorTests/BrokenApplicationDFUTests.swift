import BeaconCore
import NordicDFU
import Testing

@testable import Simulator

/// A device whose application accepts a connection but never answers GATT discovery, with its
/// bootloader advertising at the application address +1 (docs/protocols/nordic-dfu.md §2.2): DFU must still reach the
/// bootloader instead of giving up on the application.
@Suite("DFU of a device with a broken application", .timeLimit(.minutes(1))) struct BrokenApplicationDFUTests {
  /// The simulated fleet, except that a connection to `broken` is a link on which nothing ever answers
  /// (the remote drops it at the first request).
  final class BrokenApplicationCentral: Central {
    let name = "sim-dfu-broken-app"
    let fleet: SimulatedDFUCentral
    let broken: BluetoothAddress

    init(fleet: SimulatedDFUCentral, broken: BluetoothAddress) {
      self.fleet = fleet
      self.broken = broken
    }

    final class DeadBearer: ATTBearer {
      let peer: BluetoothAddress
      let incoming: AsyncThrowingStream<[UInt8], any Error>
      init(peer: BluetoothAddress) {
        self.peer = peer
        incoming = AsyncThrowingStream { $0.finish(throwing: LinkError(.disconnected, peer: peer)) }
      }
      func send(_ pdu: [UInt8]) async throws { throw LinkError(.disconnected, peer: peer) }
      func close() async {}
    }

    func scan(_ parameters: ScanParameters) -> AsyncThrowingStream<AdvertisingReport, any Error> {
      fleet.scan(parameters)
    }

    func connect(to address: BluetoothAddress, type: AddressType, timeout: Duration) async throws -> any ATTBearer {
      address == broken ? DeadBearer(peer: address) : try await fleet.connect(to: address, type: type, timeout: timeout)
    }
  }

  @Test func bootloaderIsReachedWhenTheApplicationDoesNotAnswerDiscovery() async throws {
    let device = BluetoothAddress("C0:11:22:33:44:10")!
    // A fresh target sits in its bootloader, which advertises at the application address +1 (§2.2).
    let peripheral = SimulatedDFUPeripheral(address: device, target: SimulatedDFUTarget())
    let central = BrokenApplicationCentral(fleet: SimulatedDFUCentral(peripherals: [peripheral]), broken: device)
    let factory = BLEDFULinkFactory(
      central: central, device: device, connectTimeout: .seconds(5), scanTimeout: .seconds(3),
      responseTimeout: .seconds(5))
    let image = DFUTestPackages.application(3000)
    try await DFUTransfer(factory: factory, pause: { _ in }).run([image])
    #expect(await factory.bootloaderAddress == BluetoothAddress("C0:11:22:33:44:11")!)
    #expect(await peripheral.target.activated.map(\.firmware) == [image.firmware])
  }
}
