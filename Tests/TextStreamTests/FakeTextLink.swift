import BeaconCore
import Synchronization
import TestClocks
import TextStream

/// A `TextStreamLink` a test plays the device of: it records every fragment written, acks each one at
/// once or holds it until the test calls `ack()` / `refuse(_:)`, and notifies what the test sends with
/// `notify(_:)`.
final class FakeTextLink: TextStreamLink {
  let peer = BluetoothAddress(rawValue: 0xC0_FFEE)
  let profile: TextStreamProfile
  let mtu: Int
  private let stream: AsyncStream<[UInt8]>
  private let sink: AsyncStream<[UInt8]>.Continuation
  private struct State {
    var writes: [[UInt8]] = []
    var held: [CheckedContinuation<Void, any Error>] = []
    var autoAck = true
    var notified = 0
  }
  private let state = Mutex(State())
  /// Signalled after every write and hold.
  let signal = StateSignal()

  init(profile: TextStreamProfile, mtu: Int = 247, autoAck: Bool = true) {
    self.profile = profile
    self.mtu = mtu
    (stream, sink) = AsyncStream.makeStream(of: [UInt8].self)
    state.withLock { $0.autoAck = autoAck }
  }

  var writes: [[UInt8]] { state.withLock { $0.writes } }
  var heldCount: Int { state.withLock { $0.held.count } }
  var attMTU: Int { get async { mtu } }

  func write(_ fragment: [UInt8]) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      let auto = state.withLock { s -> Bool in
        s.writes.append(fragment)
        if !s.autoAck { s.held.append(continuation) }
        return s.autoAck
      }
      if auto { continuation.resume() }
      signal.changed()
    }
  }

  /// Acks the oldest held write.
  func ack() { state.withLock { $0.held.removeFirst() }.resume() }

  /// Answers the oldest held write with an ATT Error Response.
  func refuse(_ code: ATTErrorCode) {
    state.withLock { $0.held.removeFirst() }.resume(
      throwing: ATTRequestError(code: code, request: ATTOpcode.writeRequest.rawValue, handle: 0x0010))
  }

  func notify(_ text: String) {
    state.withLock { $0.notified += 1 }
    sink.yield(Array(text.utf8))
  }

  /// What `notify` has sent so far, counted as it is sent (as a GATT client counts PDUs as they arrive).
  var notificationsReceived: Int? { get async { state.withLock { $0.notified } } }
  func drop() { sink.finish() }

  func notifications() async -> AsyncStream<[UInt8]> { stream }
  func close() async { sink.finish() }
}

extension ManualClock {
  /// Waits until exactly one timer sleeps, due `after` from now: the engine's current timer is armed.
  func waitForTimer(_ after: Duration) async {
    let due = now.offset + after
    await signal.wait { self.deadlines == [due] }
  }
}
