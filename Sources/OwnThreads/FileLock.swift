import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// An exclusive `flock(2)` on a lock file, so two processes (or two tasks of one process, each with its own
/// open file description) take turns: fetching the same firmware package, updating the GATT cache file. The blocking `flock` runs on a thread of
/// its own — never the cooperative pool, nor a dispatch worker (libdispatch keeps about one worker per core,
/// and a lock held for a whole download would starve every other user of the pool); the lock is released by `unlock()` or when the process dies (the
/// kernel drops flock locks with the last descriptor), so a killed fetch never leaves the cache locked.
public final class FileLock: Sendable {
  private let fd: Int32
  public let path: String

  private init(fd: Int32, path: String) {
    self.fd = fd
    self.path = path
  }

  /// Opens (creating) `path` and waits for the exclusive lock; `whenWaiting` is called (on the locking
  /// thread) when another holder makes it wait, before it blocks.
  public static func acquire(_ path: String, whenWaiting: (@Sendable () -> Void)? = nil) async throws -> FileLock {
    try await OwnThread.run("file-lock") {
      let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
      guard fd >= 0 else { throw FileLockError("cannot open the lock file \(path): \(String(cString: strerror(errno)))") }
      if flock(fd, LOCK_EX | LOCK_NB) == 0 { return FileLock(fd: fd, path: path) }
      if errno == EWOULDBLOCK { whenWaiting?() }
      while flock(fd, LOCK_EX) != 0 {
        if errno == EINTR { continue }
        let message = String(cString: strerror(errno))
        close(fd)
        throw FileLockError("cannot lock \(path): \(message)")
      }
      return FileLock(fd: fd, path: path)
    }
  }

  /// Whether another open file description holds the lock now (for tests and `firmware list`).
  public static func isHeld(_ path: String) -> Bool {
    let fd = open(path, O_RDWR | O_CLOEXEC)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    if flock(fd, LOCK_EX | LOCK_NB) == 0 {
      flock(fd, LOCK_UN)
      return false
    }
    return errno == EWOULDBLOCK
  }

  public func unlock() {
    flock(fd, LOCK_UN)
  }

  deinit { close(fd) }
}

/// A lock file that cannot be opened or locked, in one line: what failed and where.
public struct FileLockError: Error, Sendable, Hashable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
