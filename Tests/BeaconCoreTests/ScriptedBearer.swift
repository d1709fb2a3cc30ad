import Synchronization
import TestClocks

@testable import BeaconCore

/// An `ATTBearer` that plays a recorded ATT transcript: each PDU the client sends must equal the next
/// recorded request, and the recorded answer(s) are then delivered. Anything off-script is recorded as a
/// mismatch so the test fails with the exact bytes.
final class ScriptedBearer: ATTBearer {
  struct Exchange {
    var request: [UInt8]
    /// PDUs the peer sends after the request (usually one response; may include notifications).
    var answers: [[UInt8]]
  }

  let peer = BluetoothAddress(rawValue: 0xC0FFEE)
  let incoming: AsyncThrowingStream<[UInt8], any Error>
  private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
  private let state: Mutex<(script: [Exchange], sent: [[UInt8]], mismatches: [String], closed: Bool)>
  /// Signalled after every PDU the client sends and on close: `await bearer.signal.wait { … }`.
  let signal = StateSignal()

  init(_ script: [Exchange]) {
    (incoming, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
    state = Mutex((script, [], [], false))
  }

  var sent: [[UInt8]] { state.withLock { $0.sent } }
  var mismatches: [String] { state.withLock { $0.mismatches } }
  var remaining: Int { state.withLock { $0.script.count } }
  var isClosed: Bool { state.withLock { $0.closed } }

  /// Delivers a PDU the peer sends on its own (notification, indication, a request).
  func inject(_ pdu: [UInt8]) { continuation.yield(pdu) }

  /// Ends the link as the peer dropping it.
  func drop() { continuation.finish(throwing: LinkError(.disconnected, peer: peer)) }

  func send(_ pdu: [UInt8]) async throws {
    let answers = try state.withLock { s -> [[UInt8]] in
      if s.closed { throw LinkError(.closed) }
      s.sent.append(pdu)
      guard let next = s.script.first else {
        s.mismatches.append("unexpected extra PDU \(Hex.encode(pdu))")
        return []
      }
      guard next.request == pdu else {
        s.mismatches.append("expected \(Hex.encode(next.request)), got \(Hex.encode(pdu))")
        return []
      }
      s.script.removeFirst()
      return next.answers
    }
    signal.changed()
    for answer in answers { continuation.yield(answer) }
  }

  func close() async {
    state.withLock { $0.closed = true }
    signal.changed()
    continuation.finish(throwing: LinkError(.closed))
  }
}
