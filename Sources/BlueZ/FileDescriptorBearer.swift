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
