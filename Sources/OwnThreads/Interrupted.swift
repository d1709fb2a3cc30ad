import Glibc

/// The one place a system call interrupted by a signal is made again. A blocking call (read, write, send,
/// recv, poll, accept, flock, waitpid) that a signal handler interrupts before it did anything fails with
/// EINTR; POSIX says nothing happened and the call may simply be repeated. `reconcile` and `monitor` install
/// handlers for SIGINT, SIGTERM and SIGHUP, so any of their threads may see it.
public enum Interrupted {
  /// Calls `call` again for as long as it fails with -1 and errno EINTR; returns its first other result,
  /// with errno as that call left it (nothing runs between the call and the return).
  @inlinable
  public static func retry<Result: BinaryInteger>(_ call: () -> Result) -> Result {
    while true {
      let result = call()
      if result == -1 && errno == EINTR { continue }
      return result
    }
  }
}

extension Interrupted {
  /// Writes all of `bytes` to the blocking descriptor `fd`: `write(2)`, or `send(2)` with MSG_NOSIGNAL for a
  /// socket (a peer gone is an error, not a SIGPIPE), each call made again on EINTR and continued after a short
  /// write. False at the first other failure or a write of nothing, with errno as that call left it. The one
  /// loop of every whole-buffer write (standard output's lines, the metrics endpoint's answers, durable files).
  @discardableResult
  public static func writeAll(_ fd: Int32, _ bytes: [UInt8], socket: Bool = false) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let n = retry {
        bytes.withUnsafeBytes { buffer in
          socket
            ? send(fd, buffer.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            : write(fd, buffer.baseAddress! + offset, bytes.count - offset)
        }
      }
      guard n > 0 else { return false }
      offset += n
    }
    return true
  }
}
