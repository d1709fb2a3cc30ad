import CBlueZ
import Glibc
import OwnThreads
import Synchronization

/// One non-blocking Bluetooth socket shared between a blocking waiter thread and async callers, closed
/// exactly once. Reads and writes happen under a lock on a non-blocking descriptor (so they never block
/// and never touch a descriptor number that was closed and reused); the only blocking call, `poll`, waits
/// outside the lock and also watches a wake pipe that `close()` writes to, so a closing socket wakes its
/// waiter at once. Blocking waits must run on a dedicated thread (see `OwnThread`), never on the
/// cooperative pool.
final class SocketHandle: Sendable {
  private let fd: Mutex<Int32?>
  /// Wakes `wait` when the socket closes.
  let wakePipe: WakePipe
  /// For errors: `hci0`, or nil for the mgmt socket.
  let adapter: String?

  /// Takes ownership of `fd` and makes it non-blocking.
  init(adopting descriptor: Int32, adapter: String?) throws {
    do {
      wakePipe = try WakePipe(adapter: adapter)
    } catch {
      Glibc.close(descriptor)
      throw error
    }
    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    fd = Mutex(descriptor)
    self.adapter = adapter
  }

  deinit {
    close()
    wakePipe.close()
  }

  var isClosed: Bool { fd.withLock { $0 == nil } }

  /// Runs `body` with the open descriptor, or throws EBADF once closed.
  func withDescriptor<T>(_ call: String, _ body: (Int32) throws -> T) throws -> T {
    try fd.withLock { fd in
      guard let fd else { throw BlueZError(errno: EBADF, call: call, adapter: adapter) }
      return try body(fd)
    }
  }

  /// Writes one whole packet; throws on any error, including a full send buffer (EAGAIN).
  func send(_ packet: [UInt8], call: String) throws {
    try withDescriptor(call) { fd in
      while true {
        let n = Interrupted.retry {
          packet.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        if n == packet.count { return }
        throw n < 0 ? BlueZError.current(call, adapter: adapter) : BlueZError(errno: EIO, call: call, adapter: adapter)
      }
    }
  }

  /// Reads one packet if one is waiting; nil when none is (EAGAIN). Throws on errors and on end of stream
  /// (ECONNRESET).
  func receive(capacity: Int, call: String) throws -> [UInt8]? {
    try withDescriptor(call) { fd in
      var buffer = [UInt8](repeating: 0, count: capacity)
      while true {
        let n = Interrupted.retry {
          buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        }
        if n > 0 { return Array(buffer[0..<n]) }
        if n == 0 { throw BlueZError(errno: ECONNRESET, call: call, adapter: adapter) }
        switch errno {
        case EAGAIN: return nil
        default: throw BlueZError.current(call, adapter: adapter)
        }
      }
    }
  }

  enum Readiness { case ready, timedOut, closed }

  /// Blocks the calling (dedicated) thread until the socket has `events` (POLLIN or POLLOUT), the timeout
  /// passes (nil = forever), or `close()` is called.
  func wait(for events: Int16, timeout: Duration?) -> Readiness {
    guard let descriptor = fd.withLock({ $0 }) else { return .closed }
    var fds = [
      pollfd(fd: descriptor, events: events, revents: 0),
      pollfd(fd: wakePipe.readEnd, events: Int16(POLLIN), revents: 0),
    ]
    let milliseconds =
      timeout.map { Int32(clamping: $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) }
      ?? -1
    while true {
      let r = Interrupted.retry { poll(&fds, 2, milliseconds) }
      if fds[1].revents != 0 || isClosed { return .closed }
      return r == 0 ? .timedOut : .ready
    }
  }

  /// Gives up ownership: returns the open descriptor (nil if closed) without closing it, and wakes waiters.
  func release() -> Int32? {
    fd.withLock { fd in
      defer { fd = nil }
      wakePipe.wake()
      return fd
    }
  }

  /// Closes the descriptor (idempotent) and wakes every waiter. The descriptor is taken out under the lock
  /// (`release()`: no call can use it after that) and closed outside it: `close(2)` of an L2CAP socket runs
  /// the kernel's link teardown, and a thread that dies there (Debian 6.1's `hci_chan_del` list corruption,
  /// docs/protocols/vm-e2e.md pitfall 9) must not die holding a lock every other thread then fails to take.
  func close() {
    guard let open = release() else { return }
    Glibc.close(open)
  }
}
