import BeaconCore
import KBeacon
import Simulator
import Synchronization

/// A `KBeaconLink` straight onto a simulated KBeacon's FEA1/FEA2 byte interface, without the ATT layer:
/// used to test the session and the device's protocol engine together at a chosen MTU. Every byte the
/// session writes reaches the device unchanged and every notification comes back unchanged; the GATT
/// tests cover the same path over ATT.
final class KBeaconDirectLink: KBeaconLink {
  let peer: BluetoothAddress
  let device: SimulatedKBeacon
  let mtu: Int
  private let stream: AsyncThrowingStream<[UInt8], any Error>
  private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
  private let closed = Mutex(false)
  /// Every frame written, for assertions about what went over the air.
  let written = FrameLog()

  init(device: SimulatedKBeacon, mtu: Int) async {
    self.peer = device.address
    self.device = device
    self.mtu = mtu
    (stream, continuation) = AsyncThrowingStream.makeStream()
    await device.connected(mtu: mtu)
  }

  var attMTU: Int { get async { mtu } }

  func writeFrame(_ frame: [UInt8]) async throws {
    guard !closed.withLock({ $0 }) else { throw LinkError(.disconnected, peer: peer) }
    precondition(frame.count <= mtu - 3, "frame of \(frame.count) bytes exceeds ATT MTU \(mtu)")
    await written.append(frame)
    let output = await device.write(frame)
    for n in output.notifications {
      precondition(n.count <= mtu - 3, "notification of \(n.count) bytes exceeds ATT MTU \(mtu)")
      continuation.yield(n)
    }
    if output.disconnect { await close() }
  }

  func frames() async throws -> AsyncThrowingStream<[UInt8], any Error> { stream }

  func indications() async throws -> AsyncThrowingStream<[UInt8], any Error> {
    throw KBeaconError.notSupported("FEA3 over the direct link")
  }

  func close() async {
    closed.withLock { $0 = true }
    continuation.finish(throwing: LinkError(.disconnected, peer: peer))
  }
}

actor FrameLog {
  private(set) var frames: [[UInt8]] = []
  func append(_ f: [UInt8]) { frames.append(f) }
}
