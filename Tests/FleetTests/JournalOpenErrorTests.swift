import Foundation
import GRDB
import Testing

@testable import Fleet

/// Hostile-input review, "Wording": `campaign status` printed "SQLite error 26" without the file; a read-only parent folder
/// gave a raw NSCocoaErrorDomain dump; a full disk before the start said "disk I/O error". Each now names the
/// file or folder and says what is wrong.
@Suite("Journal open errors", .timeLimit(.minutes(1))) struct JournalOpenErrorTests {
  @Test func aFileThatIsNotADatabaseIsNamedAsSuch() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-notadb-\(UUID().uuidString)")
      .path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let path = folder + "/journal.sqlite"
    try Data(String(repeating: "these are my notes, not a journal\n", count: 200).utf8).write(
      to: URL(fileURLWithPath: path))
    #expect {
      _ = try Journal(path: path)
    } throws: { error in
      let text = "\(error)"
      return text.hasPrefix("\(path) is not a journal database") && !text.contains("SQLite error 26")
    }
  }

  @Test func aFolderThatCannotBeCreatedNamesTheFolderThatRefused() throws {
    // /sys refuses mkdir even to root (EPERM), where a chmod'ed temporary folder would not.
    let path = "/sys/bp-journal-\(UUID().uuidString.prefix(8))/state/journal.sqlite"
    #expect {
      _ = try Journal(path: path)
    } throws: { error in
      let text = "\(error)"
      return text.contains("/sys is not writable (Operation not permitted)") && text.contains("--state-dir")
        && !text.contains("NSCocoaErrorDomain")
    }
  }

  @Test func aFullDiskIsCalledFull() {
    let path = "/var/state/bp/journal.sqlite"
    let ioError = DatabaseError(resultCode: .SQLITE_IOERR, message: "disk I/O error")
    #expect(
      "\(JournalOpenError.translate(ioError, path: path, free: { _ in 0 }))"
        == "the disk holding /var/state/bp is full (0 bytes free): the journal /var/state/bp/journal.sqlite cannot be written. "
        + "Free some space, or give --state-dir a folder on another disk")
    let full = DatabaseError(resultCode: .SQLITE_FULL, message: "database or disk is full")
    #expect(
      "\(JournalOpenError.translate(full, path: path, free: { _ in 4096 }))".hasPrefix(
        "the disk holding /var/state/bp is full (4096 bytes free)"))
    // An I/O error with room to spare is left as SQLite says it.
    #expect(JournalOpenError.translate(ioError, path: path, free: { _ in 1 << 30 }) is DatabaseError)
  }

  /// A write past the process's file size limit fails with EFBIG, which SQLite reports as "disk I/O error"
  /// (the fault matrix's disk-full case runs under `ulimit -f`): the file that reached the limit is named
  /// with the limit, when opening and mid-run alike, as a full disk is.
  @Test func aFileAtTheFileSizeLimitIsNamedWithTheLimit() {
    let path = "/var/state/bp/journal.sqlite"
    let ioError = DatabaseError(resultCode: .SQLITE_IOERR, message: "disk I/O error")
    let sizes = [path: Int64(4096), path + "-wal": 327_680]
    let expected =
      "the journal file /var/state/bp/journal.sqlite-wal has reached 327680 bytes, the largest file this process "
      + "may write (its file size limit, `ulimit -f`): it cannot grow. Raise the limit (`ulimit -f unlimited` in the "
      + "shell, `LimitFSIZE=infinity` in a systemd unit) and run again"
    #expect(
      "\(JournalOpenError.translate(ioError, path: path, free: { _ in 1 << 30 }, fileLimit: { 327_680 }, size: { sizes[$0] }))"
        == expected)
    #expect(
      JournalOpenError.writeReason(
        ioError, path: path, free: { _ in 1 << 30 }, fileLimit: { 327_680 }, size: { sizes[$0] })
        == expected)
    // A limit no journal file is near, or none at all: not the cause (SQLite's words stay).
    #expect(
      JournalOpenError.translate(
        ioError, path: path, free: { _ in 1 << 30 }, fileLimit: { 1 << 30 }, size: { sizes[$0] })
        is DatabaseError)
    #expect(
      JournalOpenError.writeReason(ioError, path: path, free: { _ in 1 << 30 }, fileLimit: { nil }, size: { sizes[$0] })
        == String(describing: ioError))
    // Mid-run, a full disk is worded as when opening.
    #expect(
      JournalOpenError.writeReason(ioError, path: path, free: { _ in 0 }, fileLimit: { nil }, size: { sizes[$0] })
        .hasPrefix("the disk holding /var/state/bp is full (0 bytes free)"))
  }

  @Test func aFolderWithoutWriteAccessIsNamed() {
    let cantOpen = DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "unable to open database file")
    #expect(
      "\(JournalOpenError.translate(cantOpen, path: "/srv/ro/journal.sqlite", writable: { _ in false }))"
        .hasPrefix(
          "the folder /srv/ro is not writable (Permission denied): the journal /srv/ro/journal.sqlite cannot be created there"
        ))
  }
}
