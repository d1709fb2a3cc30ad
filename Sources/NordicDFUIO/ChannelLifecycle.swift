import CPipe
import Glibc
import Synchronization

/// The shutdown state shared by a `FileDescriptorChannel`, its reader thread and its closers: whether a
/// close began, whether the reader left, whether the descriptor is closed.
final class ChannelLifecycle: Sendable {
  private let closing = Mutex(false)
  let readerGone = Latch()
  let closed = Latch()

  var isClosing: Bool { closing.withLock { $0 } }

  /// True for the first caller only: that one performs the close.
  func beginClosing() -> Bool {
    closing.withLock { c in
      defer { c = true }
      return !c
    }
  }
}

/// A one-shot event: after `open()`, every `wait()` returns (at once when it is already open).
final class Latch: Sendable {
  private let state = Mutex((isOpen: false, waiters: [CheckedContinuation<Void, Never>]()))

  func open() {
    let waiters = state.withLock { s in
      s.isOpen = true
      defer { s.waiters = [] }
      return s.waiters
    }
    for w in waiters { w.resume() }
  }

  func wait() async {
    await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
      let now = state.withLock { s in
        if s.isOpen { return true }
        s.waiters.append(c)
        return false
      }
      if now { c.resume() }
    }
  }
}

/// A non-blocking, close-on-exec pipe (`pipe2`) whose read end becomes readable for good once signalled:
/// the reader thread and a writer waiting for POLLOUT both wake on it.
struct WakePipe: Sendable {
  let readEnd: Int32
  let writeEnd: Int32

  init() throws(SerialPortError) {
    var ends: [Int32] = [-1, -1]
    guard bp_pipe2(&ends, O_CLOEXEC | O_NONBLOCK) == 0 else { throw .configure(errno: errno) }
    readEnd = ends[0]
    writeEnd = ends[1]
  }

  /// One byte into an empty non-blocking pipe: never blocks.
  func signal() {
    var byte: UInt8 = 1
    _ = Glibc.write(writeEnd, &byte, 1)
  }

  func closeBoth() {
    Glibc.close(readEnd)
    Glibc.close(writeEnd)
  }
}
