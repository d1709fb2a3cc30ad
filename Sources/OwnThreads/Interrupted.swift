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
