import BeaconCore
import Dispatch
import Foundation
import Glibc
import OwnThreads
import Synchronization

/// An `ATTBearer` over a connected, message-preserving socket: a live L2CAP LE socket on the ATT CID 4
/// (docs/protocols/linux-ble.md §1, btgatt-client's pattern) or one end of a `socketpair(AF_UNIX, SOCK_SEQPACKET)` in the
/// simulator. Both keep PDU boundaries, so one `recv` is one ATT PDU.
///
/// Threads: a dedicated reader `Thread` blocks in `poll` on the socket and a wake-up pipe, never the
/// cooperative pool; sends run on a thread of their own (`SerialThread`) so a full socket buffer (the kernel's
/// ACL flow control, or the simulator's bounded queue) suspends the caller instead of blocking a pool thread
/// or a libdispatch worker.
/// That suspension is the back-pressure Write Commands rely on.
///
/// Read-ahead is bounded: at most `readAheadLimit` received PDUs wait for the consumer; beyond that the
/// reader stops reading and the kernel's socket buffer fills, which pushes back on the sender (over a
/// socketpair, the simulated device paces its client this way).
///
/// Ownership: the bearer owns the descriptor from `init` on and closes it exactly once, after the reader has
/// stopped and queued sends have drained. `close()` is idempotent; a bearer released without it is closed
/// by `deinit`. When the peer goes away `incoming`
/// finishes throwing `LinkError(.disconnected)`; after a local `close()` it throws `LinkError(.closed)`.
public final class FileDescriptorBearer: ATTBearer {
  public let peer: BluetoothAddress
  public let incoming: AsyncThrowingStream<[UInt8], any Error>
  /// The socket, its threads and state. The reader thread holds only this, never the bearer, so a bearer
  /// dropped without `close()` is closed by `deinit` — its reader and sender threads end and the descriptor
  /// is closed — rather than leaking both threads and the socket for the life of the process.
  private let link: FileDescriptorLink
  /// Wakes the reader thread on `close()`.
  var wakePipe: WakePipe { link.wakePipe }

  /// Largest datagram accepted per `recv`; ATT PDUs are at most 517 octets (Vol 3 Part F §3.2.8).
  static let receiveBufferSize = FileDescriptorLink.receiveBufferSize
  /// Received PDUs held for the consumer at most [choice: 16, a few connection events' worth].
  public static let readAheadLimit = FileDescriptorLink.readAheadLimit

  /// Takes ownership of `fd`, a connected SOCK_SEQPACKET socket, and starts reading from it.
  public init(fileDescriptor fd: Int32, peer: BluetoothAddress) throws {
    let link = try FileDescriptorLink(fileDescriptor: fd, peer: peer)
    self.link = link
    self.peer = peer
    incoming = AsyncThrowingStream(unfolding: { [inbox = link.inbox] in try await inbox.next() })
    OwnThread.start("att-reader \(peer)") { [link] in link.readLoop() }
  }

  /// Sends one PDU whole. Throws `LinkError(.closed)` after `close()`, `LinkError(.disconnected)` when the
  /// peer is gone.
  public func send(_ pdu: [UInt8]) async throws { try await link.send(pdu) }

  /// Closes the link: wakes the reader, unblocks a blocked send, then (from the reader) closes the
  /// descriptor. Safe to call any number of times from any task.
  public func close() async { link.closeNow() }

  /// The synchronous body of `close()`, for callers outside async code (a signal handler's task).
  public func closeNow() { link.closeNow() }

  deinit { link.closeNow() }
}

/// The socket behind a `FileDescriptorBearer`: its reader loop (on the bearer's reader thread), sends (on
/// `sendQueue`) and the state both read.
final class FileDescriptorLink: Sendable {
  let peer: BluetoothAddress
  private let fd: Int32
  /// Wakes the reader thread on `close()`.
  let wakePipe: WakePipe
  /// Sends (which may block in `send(2)`) and the final close, in order, on a thread of their own.
  private let sendQueue: SerialThread
  let inbox: ReceivedPDUs
  /// True once `close()` ran or the link dropped; guarded by the mutex, read from every thread.
  private let state = Mutex(State())

  private struct State {
    var closedLocally = false
    var linkDown = false
    var descriptorClosed = false
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

  func send(_ pdu: [UInt8]) async throws {
    try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
      sendQueue.async { [self] in
        done.resume(with: Result { try sendNow(pdu) })
      }
    }
  }

  /// Runs on `sendQueue`: blocks in `send(2)` until the kernel takes the whole datagram.
  private func sendNow(_ pdu: [UInt8]) throws {
    let (closed, down) = state.withLock { ($0.closedLocally || $0.descriptorClosed, $0.linkDown) }
    if closed { throw LinkError(.closed, peer: peer) }
    if down { throw LinkError(.disconnected, peer: peer) }
    while true {
      let sent = Interrupted.retry {
        pdu.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      }
      if sent == pdu.count { return }
      let code = errno
      if sent < 0 && (code == EAGAIN || code == EWOULDBLOCK) {
        // A non-blocking socket (e.g. left so by a non-blocking connect): wait until it can take the PDU.
        var out = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        _ = poll(&out, 1, -1)
        continue
      }
      if state.withLock({ $0.closedLocally }) { throw LinkError(.closed, peer: peer) }
      throw LinkError(.disconnected, peer: peer, detail: sent < 0 ? ErrnoText.message(code) : "short send")
    }
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
    // Close on the send queue so that a send already running finishes (shutdown has unblocked it) first.
    sendQueue.async { [self] in
      state.withLock { s in
        s.descriptorClosed = true
        _ = Glibc.close(fd)
        wakePipe.close()
      }
    }
    sendQueue.finish()
  }
}

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
