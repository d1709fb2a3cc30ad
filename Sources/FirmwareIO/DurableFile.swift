import BeaconCore
import Foundation
import OwnThreads

#if canImport(Glibc)
  import Glibc
#endif

/// Writes that survive a crash or power loss (the cache never holds half a file under its final name):
/// data goes to a temporary name in the same folder, is fsynced, renamed over the final name, and the
/// folder is fsynced so the rename itself is on disk. Blocking: callers run it off the cooperative pool.
enum DurableFile {
  static func makeDirectory(_ path: String) throws {
    do {
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    } catch {
      throw FirmwareCacheError("cannot create the folder \(path): \(error.localizedDescription)")
    }
  }

  /// Writes `bytes` to `path` atomically and durably. The temporary file is this writer's alone
  /// (`TemporaryFileName`, created `O_EXCL`): gateways on other hosts or in containers sharing the cache may
  /// have the same pid, and one would otherwise truncate or rename the other's half-written file.
  static func write(_ bytes: [UInt8], to path: String) throws {
    let temporary = TemporaryFileName.beside(path)
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw failure("cannot write", temporary) }
    guard Interrupted.writeAll(fd, bytes) else {
      let error = failure("cannot write", temporary)
      close(fd)
      unlink(temporary)
      throw error
    }
    guard fsync(fd) == 0 else {
      let error = failure("cannot sync", temporary)
      close(fd)
      unlink(temporary)
      throw error
    }
    close(fd)
    try commit(temporary, to: path)
  }

  /// fsyncs the finished file at `from`, renames it to `to` and fsyncs the folder.
  static func commit(_ from: String, to: String) throws {
    let fd = open(from, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw failure("cannot open", from) }
    let synced = fsync(fd) == 0
    close(fd)
    guard synced else { throw failure("cannot sync", from) }
    guard rename(from, to) == 0 else {
      let error = failure("cannot rename \(from) to", to)
      unlink(from)
      throw error
    }
    syncDirectory(of: to)
  }

  static func syncDirectory(of path: String) {
    let folder = (path as NSString).deletingLastPathComponent
    let fd = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { return }
    fsync(fd)
    close(fd)
  }

  static func remove(_ path: String) { unlink(path) }

  /// Removes `path` when it exists and holds no byte.
  static func removeIfEmpty(_ path: String) {
    var info = stat()
    if stat(path, &info) == 0, info.st_size == 0 { unlink(path) }
  }

  static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

  /// The file's size in bytes; nil when there is none.
  static func size(_ path: String) -> Int64? {
    var info = stat()
    return stat(path, &info) == 0 ? Int64(info.st_size) : nil
  }

  private static func failure(_ what: String, _ path: String) -> FirmwareCacheError {
    FirmwareCacheError("\(what) \(path): \(String(cString: strerror(errno)))")
  }
}
