import BeaconCore
import Synchronization
import Testing

@testable import NordicDFU

/// `BLEDFULinkFactory` closes every connection it does not hand over to a link, errors included.
@Suite("BLE DFU link factory cleanup", .timeLimit(.minutes(1))) struct BLEDFULinkFactoryCleanupTests {
  /// A radio whose every connection fails at the first request; it counts connections and closes.
  final class DeadCentral: Central {
    let name = "dead"
    let counts = Mutex((connects: 0, closes: 0))

    final class Bearer: ATTBearer {
      let peer: BluetoothAddress
      let incoming: AsyncThrowingStream<[UInt8], any Error>
      let onClose: @Sendable () -> Void
      let closed = Mutex(false)
      init(peer: BluetoothAddress, onClose: @escaping @Sendable () -> Void) {
        self.peer = peer
        self.onClose = onClose
        incoming = AsyncThrowingStream { $0.finish(throwing: LinkError(.disconnected, peer: peer)) }
      }
      func send(_ pdu: [UInt8]) async throws { throw LinkError(.disconnected, peer: peer) }
      func close() async {
        let first = closed.withLock { c in
          defer { c = true }
          return !c
        }
        if first { onClose() }
      }
    }

    func scan(_ parameters: ScanParameters) -> AsyncThrowingStream<AdvertisingReport, any Error> {
      AsyncThrowingStream { $0.finish() }
    }

    func connect(to address: BluetoothAddress, type: AddressType, timeout: Duration) async throws -> any ATTBearer {
      counts.withLock { $0.connects += 1 }
      return Bearer(peer: address) { [self] in counts.withLock { $0.closes += 1 } }
    }
  }

  @Test func everyConnectionIsClosedWhenNoLinkCanBeOpened() async throws {
    let central = DeadCentral()
    let factory = BLEDFULinkFactory(
      central: central, device: BluetoothAddress("C0:11:22:33:44:55")!, connectTimeout: .seconds(1),
      scanTimeout: .milliseconds(1), responseTimeout: .seconds(1))
    await #expect(throws: (any Error).self) { _ = try await factory.open(image: 0) }
    let counts = central.counts.withLock { $0 }
    #expect(counts.connects >= 1)  // the application address, then the bootloader candidates
    #expect(counts.closes == counts.connects)
  }
}
