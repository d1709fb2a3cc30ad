import Foundation
import GRDB

/// Why the journal file could not be opened or created, in words that name the file or folder and what to do
/// (hostile-input review, "Wording"): `campaign status` printed "SQLite error 26" without the file, a read-only parent
/// folder gave Foundation's raw `NSCocoaErrorDomain` dump, and a full disk before the start said "disk I/O
/// error".
///
/// A file that reached the process's file size limit (`ulimit -f`: EFBIG, which SQLite also reports as
/// "disk I/O error") is named with the limit.
///
/// SQLite result codes (https://sqlite.org/rescode.html): 26 `SQLITE_NOTADB`, 13 `SQLITE_FULL`, 10
/// `SQLITE_IOERR`, 14 `SQLITE_CANTOPEN`, 8 `SQLITE_READONLY`. [I] An I/O error is called a full disk when the
/// journal's folder has less than `fullBelowBytes` free for the caller (SQLite reports ENOSPC while it
/// creates or grows the WAL as `SQLITE_IOERR`, not `SQLITE_FULL`).
public struct JournalOpenError: Error, Sendable, Hashable, CustomStringConvertible {
  public var description: String

  public init(_ description: String) { self.description = description }

  /// Free space below which an I/O error counts as a full disk.
  static let fullBelowBytes: Int64 = 1 << 20

  /// Bytes free to an unprivileged writer in the filesystem holding `folder` (`statvfs`), nil if unknown.
  public static func freeBytes(_ folder: String) -> Int64? {
    var status = statvfs()
    guard statvfs(folder, &status) == 0 else { return nil }
    return Int64(status.f_bavail) * Int64(status.f_frsize)
  }

  /// `error`, thrown while opening the journal at `path`, as an operator reads it; other errors unchanged.
  /// `free` and `writable` are asked about the journal's folder (injected by tests).
  /// `fileLimit` is the process's file size limit and `size` a file's size (both injected by tests).
  public static func translate(
    _ error: any Error, path: String, free: (String) -> Int64? = freeBytes,
    writable: (String) -> Bool = { access($0, W_OK) == 0 }, fileLimit: () -> Int64? = fileSizeLimit,
    size: (String) -> Int64? = fileSize
  ) -> any Error {
    let folder = (path as NSString).deletingLastPathComponent
    guard let database = error as? DatabaseError else { return error }
    switch database.resultCode {
    case .SQLITE_NOTADB:
      return JournalOpenError(
        "\(path) is not a journal database (SQLite: file is not a database): another file is where the "
          + "journal belongs. Move it aside, or give --state-dir another folder")
    case .SQLITE_FULL:
      return full(path, folder, free(folder))
    case .SQLITE_IOERR:
      if let limit = fileLimit(), let file = atLimit(path, limit, size) { return tooLarge(file, limit: limit) }
      if let bytes = free(folder), bytes < fullBelowBytes { return full(path, folder, bytes) }
      return error
    case .SQLITE_CANTOPEN, .SQLITE_READONLY:
      if !writable(folder) { return notWritable(folder, path: path) }
      return JournalOpenError("cannot open the journal \(path) (\(database.message ?? "\(database.resultCode)"))")
    default:
      return error
    }
  }

  static func full(_ path: String, _ folder: String, _ bytes: Int64?) -> JournalOpenError {
    JournalOpenError(
      "the disk holding \(folder) is full\(bytes.map { " (\($0) bytes free)" } ?? ""): the journal \(path) "
        + "cannot be written. Free some space, or give --state-dir a folder on another disk")
  }

  /// The soft file size limit of this process (`RLIMIT_FSIZE`, `ulimit -f`), nil when unlimited.
  public static func fileSizeLimit() -> Int64? {
    var limit = rlimit()
    // RLIM_INFINITY is all ones (Linux), which Swift cannot import as the macro `-1` it is spelled as.
    guard getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
    return Int64(clamping: limit.rlim_cur)
  }

  /// A file's size (`stat`), nil when it is not there.
  public static func fileSize(_ path: String) -> Int64? {
    var status = stat()
    return stat(path, &status) == 0 ? Int64(status.st_size) : nil
  }

  /// Of the journal's files (the database, its write-ahead log, its rollback journal), the one a write
  /// past the file size limit failed on. [I] Within a WAL frame or two of the limit (64 KiB): a write that
  /// crosses it is cut at the limit, so the file ends at or just under it.
  static func atLimit(_ path: String, _ limit: Int64, _ size: (String) -> Int64?) -> String? {
    [path + "-wal", path + "-journal", path].first { file in size(file).map { $0 >= limit - (64 << 10) } ?? false }
  }

  /// A write failed with EFBIG: the file reached the process's file size limit, which SQLite reports as
  /// "disk I/O error" (the fault matrix's disk-full case, `ulimit -f`). Named like the full-disk case.
  static func tooLarge(_ file: String, limit: Int64) -> JournalOpenError {
    JournalOpenError(
      "the journal file \(file) has reached \(limit) bytes, the largest file this process may write (its file "
        + "size limit, `ulimit -f`): it cannot grow. Raise the limit (`ulimit -f unlimited` in the shell, "
        + "`LimitFSIZE=infinity` in a systemd unit) and run again")
  }

  /// The reason a journal write failed, for `JournalWriteError`: a full disk or the file size limit in
  /// words an operator can act on (as when opening), else the error as it is.
  static func writeReason(
    _ error: any Error, path: String, free: (String) -> Int64? = freeBytes, fileLimit: () -> Int64? = fileSizeLimit,
    size: (String) -> Int64? = fileSize
  ) -> String {
    guard let database = error as? DatabaseError,
      database.resultCode == .SQLITE_IOERR || database.resultCode == .SQLITE_FULL
    else { return String(describing: error) }
    let translated = translate(error, path: path, free: free, fileLimit: fileLimit, size: size)
    return translated is JournalOpenError ? "\(translated)" : String(describing: error)
  }

  static func notWritable(_ folder: String, path: String) -> JournalOpenError {
    JournalOpenError(
      "the folder \(folder) is not writable (\(String(cString: strerror(EACCES)))): the journal \(path) cannot be "
        + "created there. Give --state-dir a folder you can write to")
  }

  /// Creates `folder` (and its parents) for the journal; a failure names the deepest folder that exists
  /// and cannot be written to, instead of Foundation's error dump.
  static func makeFolder(_ folder: String, path: String) throws {
    do {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    } catch {
      var existing = folder
      while !existing.isEmpty, existing != "/", !FileManager.default.fileExists(atPath: existing) {
        existing = (existing as NSString).deletingLastPathComponent
      }
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: existing, isDirectory: &isDirectory), !isDirectory.boolValue {
        throw JournalOpenError(
          "cannot create the folder \(folder) for the journal \(path): \(existing) is a file, not a folder")
      }
      // Foundation's error does not say which folder refused: try the first missing one below `existing`.
      let rest = folder.dropFirst(existing.count).split(separator: "/")
      let child = (existing as NSString).appendingPathComponent(rest.first.map(String.init) ?? "")
      let code = mkdir(child, 0o755) == 0 ? 0 : errno
      if code == 0 { rmdir(child) }
      if code == ENOSPC || code == EDQUOT { throw full(path, existing, freeBytes(existing)) }
      if code == EACCES || code == EPERM || code == EROFS {
        throw JournalOpenError(
          "cannot create the folder \(folder) for the journal \(path): \(existing) is not writable "
            + "(\(String(cString: strerror(code)))). Give --state-dir a folder you can write to")
      }
      throw JournalOpenError(
        "cannot create the folder \(folder) for the journal \(path): \(error.localizedDescription)")
    }
  }
}
