import BeaconCore
import Dispatch
import Foundation
import Glibc
import OwnThreads
import Synchronization

/// The socket behind a `FileDescriptorBearer`: its reader loop (on the bearer's reader thread), sends (on
/// `sendQueue`) and the state both read.
final class FileDescriptorLink: Sendable {
  let peer: BluetoothAddress
  private let fd: Int32
  /// Wakes the reader thread on `close()`.
  let wakePipe: WakePipe
  /// Sends that must wait (`send(2)` may block) and, when one was queued, the final close after them, in
  /// order, on a thread of their own (started only if needed).
  private let sendQueue: SerialThread
  let inbox: ReceivedPDUs
  /// True once `close()` ran or the link dropped; guarded by the mutex, read from every thread.
  private let state = Mutex(State())

  private struct State {
    var closedLocally = false
    var linkDown = false
    var descriptorClosed = false
    /// Sends handed to `sendQueue` and not yet done: while any is, later sends queue behind it (order kept).
    var queuedSends = 0
  }

  static let receiveBufferSize = 4096
  static let readAheadLimit = 16

  init(fileDescriptor fd: Int32, peer: BluetoothAddress) throws {
    self.wakePipe = try WakePipe()
    self.fd = fd
    self.peer = peer
    self.sendQueue = SerialThread(name: "att-sender \(peer)")
    self.inbox = ReceivedPDUs(limit: Self.readAheadLimit)
  }

  /// Sends `pdu` whole. The kernel nearly always has room for it: then it is sent right here, without
  /// waiting (`MSG_DONTWAIT`, so the cooperative pool never blocks), and the caller goes on without a hop to
  /// the send thread and back — two thread switches per PDU, which at 16 links were a fifth of the process's
  /// samples (`perf`, `provision-bench apply-scaling`). A socket that cannot take it now, or a send while an
  /// earlier one waits on the thread, goes to `sendQueue`, where `sendNow` may block.
  func send(_ pdu: [UInt8]) async throws {
    if try sendWithoutWaiting(pdu) { return }
    try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
      sendQueue.async { [self] in
        done.resume(with: Result { try sendNow(pdu) })
        state.withLock { $0.queuedSends -= 1 }
      }
    }
  }

  /// True when the kernel took `pdu` at once; false when it must wait on `sendQueue` (then counted there).
  /// Under the state lock, so the descriptor cannot be closed (and its number reused) during the send.
  private func sendWithoutWaiting(_ pdu: [UInt8]) throws -> Bool {
    try state.withLock { s in
      if s.queuedSends == 0 && !s.closedLocally && !s.descriptorClosed && !s.linkDown {
        switch sendOnce(pdu, flags: Int32(MSG_DONTWAIT)) {
        case .sent: return true
        case .full: break
        case .failed(let detail): throw LinkError(.disconnected, peer: peer, detail: detail)
        }
      }
      s.queuedSends += 1
      return false
    }
  }

  /// Runs on `sendQueue`: blocks in `send(2)` until the kernel takes the whole datagram.
  private func sendNow(_ pdu: [UInt8]) throws {
    let (closed, down) = state.withLock { ($0.closedLocally || $0.descriptorClosed, $0.linkDown) }
    if closed { throw LinkError(.closed, peer: peer) }
    if down { throw LinkError(.disconnected, peer: peer) }
    while true {
      switch sendOnce(pdu, flags: 0) {
      case .sent: return
      case .full:
        // A non-blocking socket (e.g. left so by a non-blocking connect): wait until it can take the PDU.
        var out = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        _ = poll(&out, 1, -1)
      case .failed(let detail):
        if state.withLock({ $0.closedLocally }) { throw LinkError(.closed, peer: peer) }
        throw LinkError(.disconnected, peer: peer, detail: detail)
      }
    }
  }

  /// What one `send(2)` of a whole PDU did: the kernel took it, the socket is full for now (`EAGAIN`), or the
  /// link failed (the error's text, or "short send": a datagram is taken whole or not at all).
  private enum SendAttempt {
    case sent, full
    case failed(String)
  }

  /// One `send(2)` of `pdu` (`MSG_NOSIGNAL` plus `flags`), retried on `EINTR`.
  private func sendOnce(_ pdu: [UInt8], flags: Int32) -> SendAttempt {
    let sent = Interrupted.retry {
      pdu.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | flags) }
    }
    if sent == pdu.count { return .sent }
    let code = errno
    if sent < 0 && (code == EAGAIN || code == EWOULDBLOCK) { return .full }
    return .failed(sent < 0 ? ErrnoText.message(code) : "short send")
  }

  /// Wakes the reader and unblocks a blocked send; the reader then closes the descriptor. Idempotent.
  func closeNow() {
    // Under the lock, so the descriptor cannot be closed (and its number reused by another socket) between
    // the check and the shutdown.
    state.withLock { s in
      guard !s.closedLocally else { return }
      s.closedLocally = true
      guard !s.descriptorClosed else { return }
      _ = shutdown(fd, Int32(SHUT_RDWR))
      wakePipe.wake()
    }
    inbox.wake()
  }

  /// The reader thread: poll → recv → yield, until EOF, an error, or a local close.
  func readLoop() {
    var buffer = [UInt8](repeating: 0, count: Self.receiveBufferSize)
    var ending: LinkError
    loop: while true {
      inbox.waitForRoom()
      if state.withLock({ $0.closedLocally }) {
        ending = LinkError(.closed, peer: peer)
        break
      }
      var fds = [
        pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
        pollfd(fd: wakePipe.readEnd, events: Int16(POLLIN), revents: 0),
      ]
      let ready = Interrupted.retry { poll(&fds, 2, -1) }
      if ready < 0 {
        ending = LinkError(.disconnected, peer: peer, detail: "poll: \(ErrnoText.message(errno))")
        break
      }
      if fds[1].revents != 0 || state.withLock({ $0.closedLocally }) {
        ending = LinkError(.closed, peer: peer)
        break
      }
      guard fds[0].revents != 0 else { continue }
      let count = Interrupted.retry {
        buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
      }
      switch count {
      case 0:
        ending = LinkError(.disconnected, peer: peer, detail: "peer closed the link")
        break loop
      case ..<0:
        let code = errno
        if code == EAGAIN || code == EWOULDBLOCK {
          inbox.wake()  // the slot taken for this read is still free
          continue
        }
        ending = LinkError(.disconnected, peer: peer, detail: ErrnoText.message(code))
        break loop
      default:
        inbox.deliver(Array(buffer[0..<count]))
      }
    }
    if state.withLock({ $0.closedLocally }) { ending = LinkError(.closed, peer: peer) }
    state.withLock { $0.linkDown = true }
    inbox.finish(ending)
    // With no send queued, close here: a send made at once holds the state lock, and one made after this sees
    // the descriptor closed. Otherwise close on the send queue, so that a send already running there
    // finishes (shutdown has unblocked it) first. Most links never queue a send, so their send thread is
    // never started (`SerialThread`).
    let closedHere = state.withLock { s -> Bool in
      guard s.queuedSends == 0 else { return false }
      s.descriptorClosed = true
      return true
    }
    if closedHere {
      closeDescriptor()
    } else {
      sendQueue.async { [self] in
        state.withLock { $0.descriptorClosed = true }
        closeDescriptor()
      }
    }
    sendQueue.finish()
  }

  /// Closes the descriptor and the wake pipe once `descriptorClosed` is set: from then on no send or
  /// `closeNow` touches either (each checks it under the state lock, and a queued send runs on `sendQueue`,
  /// before this), so the close itself runs outside the lock. It must: `close(2)` of an L2CAP socket runs
  /// the kernel's link teardown, and a thread that dies there (Debian 6.1's `hci_chan_del` list corruption,
  /// docs/protocols/vm-e2e.md pitfall 9) while holding the lock made the next `withLock` of any thread a
  /// fatal error ("Unknown error occurred while attempting to acquire a Mutex": the lock's owner was gone).
  private func closeDescriptor() {
    _ = Glibc.close(fd)
    wakePipe.close()
  }
}
