import BeaconCore
import Dispatch
import Foundation
import Glibc
import OwnThreads
import Synchronization

/// The PDUs a bearer's reader thread has received and its consumer not yet taken, at most `limit`: the
/// reader waits in `waitForRoom()` (on its own thread) before each read, the consumer frees a slot per PDU
/// taken in `next()`.
final class ReceivedPDUs: Sendable {
  private struct State {
    var items: [[UInt8]] = []
    var end: LinkError?
    var endReported = false
    var waiter: CheckedContinuation<[UInt8]?, any Error>?
  }

  private let state = Mutex(State())
  /// Counts free slots. Starts at 0 and is signalled `limit` times: a DispatchSemaphore must not be
  /// released below its initial value.
  private let room = DispatchSemaphore(value: 0)

  init(limit: Int) {
    for _ in 0..<limit { room.signal() }
  }

  /// Reader thread: blocks until a slot is free (or `wake()`).
  func waitForRoom() { room.wait() }

  /// Frees one slot without a PDU taken (a close, a retried read).
  func wake() { room.signal() }

  func deliver(_ pdu: [UInt8]) {
    state.withLock { s in
      if let waiter = s.waiter {
        s.waiter = nil
        waiter.resume(returning: pdu)
        room.signal()
      } else {
        s.items.append(pdu)
      }
    }
  }

  func finish(_ error: LinkError) {
    state.withLock { s in
      s.end = error
      if let waiter = s.waiter, s.items.isEmpty {
        s.waiter = nil
        s.endReported = true
        waiter.resume(throwing: error)
      }
    }
  }

  /// The next PDU; throws the link's end once, then returns nil.
  func next() async throws -> [UInt8]? {
    try await withCheckedThrowingContinuation { (c: CheckedContinuation<[UInt8]?, any Error>) in
      state.withLock { s in
        if !s.items.isEmpty {
          c.resume(returning: s.items.removeFirst())
          room.signal()
        } else if let end = s.end {
          if s.endReported {
            c.resume(returning: nil)
          } else {
            s.endReported = true
            c.resume(throwing: end)
          }
        } else {
          s.waiter = c
        }
      }
    }
  }
}
