import ArgumentParser
import Foundation
import Testing

@testable import BeaconProvisionCLI

/// `audit --output` is checked before any radio work, in our words: a missing folder or a directory failed
/// only after scanning and reading every device, with Foundation's "The file doesn't exist." /
/// "NSCocoaErrorDomain error 512"; `--format csv --output x.html` wrote CSV into the .html and exited 0, and
/// `--output r.xlsx` wrote Markdown.
@Suite(.isolatedState, .timeLimit(.minutes(1))) struct AuditOutputPathTests {
  /// The usage error's text, or nil when the arguments parse.
  static func usageError(_ arguments: [String]) -> String? {
    do {
      _ = try AuditCommand.parse(arguments)
      return nil
    } catch {
      #expect(AuditCommand.exitCode(for: error) == .validationFailure)
      return AuditCommand.message(for: error)
    }
  }

  @Test func aFormatThatContradictsTheExtensionIsAUsageError() {
    let message = Self.usageError(["--adapter", "sim", "--format", "csv", "--output", "x.html"])
    #expect(message?.contains("--format csv does not match --output x.html (a .html file is html)") == true)
    #expect(Self.usageError(["--adapter", "sim", "--format", "html", "--output", "x.HTM"]) == nil)
    #expect(
      Self.usageError(["--adapter", "sim", "--format", "md", "--output", "report.txt"]) == nil, "--format names it")
  }

  @Test func anExtensionThatIsNoReportFormatIsAUsageError() throws {
    let message = Self.usageError(["--adapter", "sim", "--output", "r.xlsx"])
    #expect(
      message?.contains("--output r.xlsx: .xlsx is not a report format (allowed: .json, .csv, .md, .html") == true)
    #expect(Self.usageError(["--adapter", "sim", "--output", "report"]) == nil, "no extension: Markdown")
    #expect(try AuditCommand.parse(["--adapter", "sim", "--output", "a.markdown"]).chosenFormat == .md)
  }

  /// The fleet file does not exist: a check that ran after the scan would fail on it instead.
  @Test func aMissingFolderOrADirectoryIsRefusedBeforeAnyRadioWork() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "audit-out-\(UUID().uuidString.prefix(8))"
    ).path
    try FileManager.default.createDirectory(atPath: folder + "/reports.md", withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    for (output, expected) in [
      (folder + "/missing/audit.md", "the folder \(folder)/missing does not exist"),
      (folder + "/reports.md", "\(folder)/reports.md: it is a directory"),
    ] {
      let command = try AuditCommand.parse([
        "--adapter", "sim:\(folder)/no-fleet.json", "--scan", "1", "--output", output,
      ])
      do {
        try await command.run()
        Issue.record("audit ran with --output \(output)")
      } catch let failure as CLIFailure {
        #expect(failure.message.contains(expected), "\(failure.message)")
      }
    }
  }
}

/// A file the operator names that is a folder is called one (a directory given as the profile or the
/// inventory said "no such file").
@Suite(.timeLimit(.minutes(2))) struct InputFilePathTests {
  @Test func aDirectoryGivenAsAFileIsCalledADirectory() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "input-dir-\(UUID().uuidString.prefix(8))"
    ).path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let check = try await CLIProcess.run(["profile", "check", folder])
    #expect(check.status != 0 && check.errors.contains("\(folder) is a directory, not a file"), "\(check.errors)")
    #expect(!check.errors.contains("no such file"))
    #expect(throws: CLIFailure.self) { try InputFile.read(folder, limit: .profile) }
    #expect((try? InputFile.read(folder + "/missing.json", limit: .profile)) == nil)
  }
}
