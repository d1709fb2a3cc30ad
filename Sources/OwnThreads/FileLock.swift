import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// An exclusive `flock(2)` on a lock file: the package's one inter-process lock (the firmware cache's
/// fetches, the GATT handle cache's file, the resolve cache's saves, the simulated fleet's shared state
/// file), so two processes (or two
/// tasks of one process, each with its own open file description) take turns. The lock is released by
/// `unlock()`, when the `FileLock` goes away (its descriptor is closed), or when the process dies (the kernel
/// drops flock locks with the last descriptor), so a killed holder never leaves the file locked.
///
/// `acquire` waits on a thread of its own — never the cooperative pool, nor a dispatch worker (libdispatch
/// keeps about one worker per core, and a lock held for a whole download would starve every other user of
/// the pool); `lock` blocks the calling thread, for callers already on one of their own.
public final class FileLock: Sendable {
  private let fd: Int32
  public let path: String

  private init(fd: Int32, path: String) {
    self.fd = fd
    self.path = path
  }

  /// Opens (creating, with `mode`) `path` and waits for the exclusive lock on a thread of its own;
  /// `whenWaiting` is called (on that thread) when another holder makes it wait, before it blocks.
  public static func acquire(
    _ path: String, mode: mode_t = 0o644, makeParent: (@Sendable () throws -> Void)? = nil,
    whenWaiting: (@Sendable () -> Void)? = nil
  ) async throws -> FileLock {
    try await OwnThread.run("file-lock") {
      try lock(path, mode: mode, makeParent: makeParent, whenWaiting: whenWaiting)
    }
  }

  /// Opens (creating, with `mode`) `path` and takes the exclusive lock, blocking this thread while another
  /// holder has it (a signal's EINTR waits again).
  ///
  /// A holder may remove the lock file with what it guards (`firmware prune` removes a package folder with
  /// its `.lock`). A waiter then wakes holding a lock on a file no path names any more, while a newcomer
  /// creates a new file at the path and locks that one: two holders. So a lock counts only if, once taken,
  /// `path` still names the file that was locked; otherwise it is let go and taken again on the file the
  /// path names now. `makeParent` recreates the lock file's folder when that holder removed it too.
  public static func lock(
    _ path: String, mode: mode_t = 0o644, makeParent: (() throws -> Void)? = nil,
    whenWaiting: (@Sendable () -> Void)? = nil
  ) throws -> FileLock {
    var toldWaiting = false
    var remade = 0
    while true {
      let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode)
      if fd < 0, errno == ENOENT, let makeParent, remade < 100 {
        // Made again, and opened on the next turn (another remover may be quicker still; 100 turns bound a path
        // that cannot be opened however often its folder is made, such as a dangling symbolic link).
        remade += 1
        try makeParent()
        continue
      }
      guard fd >= 0 else {
        throw FileLockError("cannot open the lock file \(path): \(String(cString: strerror(errno)))")
      }
      if flock(fd, LOCK_EX | LOCK_NB) != 0 {
        if errno == EWOULDBLOCK, !toldWaiting {
          toldWaiting = true
          whenWaiting?()
        }
        if Interrupted.retry({ flock(fd, LOCK_EX) }) != 0 {
          let message = String(cString: strerror(errno))
          close(fd)
          throw FileLockError("cannot lock \(path): \(message)")
        }
      }
      if namesSameFile(fd, path) { return FileLock(fd: fd, path: path) }
      close(fd)
    }
  }

  /// Whether `path` names the file open on `fd` (same device and inode).
  private static func namesSameFile(_ fd: Int32, _ path: String) -> Bool {
    var open = stat()
    var named = stat()
    guard fstat(fd, &open) == 0, stat(path, &named) == 0 else { return false }
    return open.st_dev == named.st_dev && open.st_ino == named.st_ino
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

/// A lock file that could not be opened or locked: which, and the system's reason.
public struct FileLockError: Error, Sendable, Hashable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
