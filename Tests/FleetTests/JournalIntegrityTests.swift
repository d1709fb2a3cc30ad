import Foundation
import Testing

@testable import Fleet

/// A damaged journal is refused: 8 KiB of random bytes at offset 32 KiB of the journal once went unnoticed (`apply` exited 0). Opening a
/// journal runs SQLite's quick_check and refuses a damaged file, naming it; a sound one opens as before.
@Suite("Journal integrity", .timeLimit(.minutes(1))) struct JournalIntegrityTests {
  /// A journal file of well over 40 KiB (one run of 3,000 devices), closed.
  static func journalFile() async throws -> (folder: String, path: String, run: String) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)").path
    let path = folder + "/journal.sqlite"
    let run: String
    do {
      let journal = try Journal(path: path)
      let addresses = (0..<3000).map { String(format: "DD:34:02:06:%02X:%02X", $0 / 256, $0 % 256) }
      run = try await journal.createRun(kind: "apply", source: "p.json", adapter: "sim", addresses: addresses)
    }
    let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    #expect(size > 48 * 1024, "the journal is only \(size) bytes")
    return (folder, path, run)
  }

  @Test func aCorruptPageInsideTheJournalIsRefusedNamingTheFile() async throws {
    let (folder, path, _) = try await Self.journalFile()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    var generator = SystemRandomNumberGenerator()
    let noise = (0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let handle = try #require(FileHandle(forUpdatingAtPath: path))
    try handle.seek(toOffset: 32 * 1024)
    try handle.write(contentsOf: noise)
    try handle.close()
    let damaged = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect {
      _ = try Journal(path: path)
    } throws: { error in
      let text = "\(error)"
      return error is JournalDamagedError && text.contains("the journal \(path) is damaged")
        && text.contains("quick_check")
    }
    // Refused untouched (the fault matrix found the WAL set-up's write, GRDB's create-and-drop of a table,
    // landing in the damaged file before the check refused it).
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == damaged, "the damaged journal was written to")
  }

  /// A header that is not SQLite's is refused as damaged, naming the file, and left as it was.
  @Test func aZeroedHeaderIsRefusedUntouched() async throws {
    let (folder, path, _) = try await Self.journalFile()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let handle = try #require(FileHandle(forUpdatingAtPath: path))
    try handle.write(contentsOf: Data(count: 100))
    try handle.close()
    let damaged = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(throws: JournalDamagedError.self) { _ = try Journal(path: path) }
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == damaged, "the damaged journal was written to")
  }

  @Test func aSoundJournalOpensAndKeepsItsRuns() async throws {
    let (folder, path, run) = try await Self.journalFile()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let journal = try Journal(path: path)
    #expect(try await journal.device(run: run, address: "DD:34:02:06:00:07")?.state == .pending)
  }
}
