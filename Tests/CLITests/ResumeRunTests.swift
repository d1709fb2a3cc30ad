import CampaignPipeline
import Fleet
import Foundation
import Testing

@testable import BeaconProvisionCLI

/// `--resume last` and the command line that finishes a run (the run id was once lost after a kill -9,
/// and the hint printed a literal `--package FILE`). The end to end cases are in ApplyCrashTests (the start
/// line, then `--resume last` after a kill -9) and ApplyFleetTests (the hint after a stop).
@Suite("Resuming runs", .timeLimit(.minutes(1))) struct ResumeRunTests {
  @Test func lastIsTheNewestRunOfTheCommandsKind() async throws {
    let journal = try Journal(path: nil)
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    for (id, kind, minutes) in [("a1", "apply", 0.0), ("d1", "dfu", 5), ("a2", "apply", 3), ("p1", "plan", 9)] {
      _ = try await journal.createRun(
        NewJournalRun(
          kind: kind, source: "p.json", adapter: "sim", addresses: [], now: start.addingTimeInterval(minutes * 60),
          id: id))
    }
    #expect(try await ResumeRun.resolve("last", kind: "apply", journal: journal, place: "/s") == "a2")
    #expect(try await ResumeRun.resolve("last", kind: "dfu", journal: journal, place: "/s") == "d1")
    #expect(try await ResumeRun.resolve("a1", kind: "apply", journal: journal, place: "/s") == "a1")
    await #expect {
      try await ResumeRun.resolve("last", kind: "apply", journal: try Journal(path: nil), place: "/s")
    } throws: {
      "\($0)" == "--resume last: there is no apply run in /s to resume"
    }
  }

  @Test func theFinishingCommandQuotesWhatAShellWouldSplit() {
    #expect(
      ResumeRun.command(["dfu", "update", "--package", "/tmp/fw/app_v5.30.zip"], run: "R")
        == "beacon-provision dfu update --package /tmp/fw/app_v5.30.zip --resume R")
    #expect(
      ResumeRun.command(["apply", "/sites/Main Hall/it's.json"], run: "R")
        == #"beacon-provision apply '/sites/Main Hall/it'\''s.json' --resume R"#)
    #expect(ResumeRun.shellQuoted("") == "''")
  }

  @Test func anInterruptedDFURunsHintNamesItsRealPackage() throws {
    let command = try DFUUpdateCommand.parse([
      "--package", "/srv/fw/app_v530.zip", "--adapter", "sim", "--state-dir", "/var/bp",
    ])
    let runner = DFUInvocation(command: command, pace: .unpaced, central: nil)
    let summary = CampaignSummary(
      run: "20261127-101500-3fa2", outcomes: ["DD:34:02:06:D1:01": .pending], interrupted: true)
    let result = CampaignResult(outcome: CampaignOutcome(summary: summary), finish: runner.finishArguments)
    #expect(
      DFUCampaignReport.table(result).hasSuffix(
        "interrupted: finish with  beacon-provision dfu update --package /srv/fw/app_v530.zip --adapter sim --state-dir /var/bp "
          + "--resume 20261127-101500-3fa2"), "\(DFUCampaignReport.table(result))")
  }

  /// A catalogue run's hint names the catalogue and cache it was given, as absolute paths (a resume without them
  /// found no catalogue: "no firmware catalogue: give --catalog URL…"); a catalogue URL with credentials is left
  /// out (the environment or the config file names it); a package's given version is kept.
  @Test func aCatalogueRunsHintNamesItsCatalogueButNeverItsPassword() throws {
    func finish(_ arguments: [String]) throws -> [String] {
      DFUInvocation(command: try DFUUpdateCommand.parse(arguments), pace: .unpaced, central: nil).finishArguments
    }
    let here = FileManager.default.currentDirectoryPath
    #expect(
      try finish(["--firmware", "5.31", "--catalog", "firmware/example", "--firmware-dir", "fw", "--adapter", "sim"])
        == [
          "dfu", "update", "--firmware", "5.31", "--catalog", here + "/firmware/example", "--firmware-dir",
          here + "/fw",
          "--adapter", "sim",
        ])
    #expect(
      try finish(["--firmware", "latest", "--catalog", "https://fw.example/kbeacon/", "--offline", "--adapter", "sim"])
        == [
          "dfu", "update", "--firmware", "latest", "--catalog", "https://fw.example/kbeacon/", "--offline", "--adapter",
          "sim",
        ])
    let secret = try finish(["--firmware", "latest", "--catalog", "https://ops:s3cret@fw.example/kbeacon/"])
    #expect(secret == ["dfu", "update", "--firmware", "latest"])
    #expect(
      try finish(["--package", "/srv/fw/app.zip", "--package-version", "V5.30"])
        == ["dfu", "update", "--package", "/srv/fw/app.zip", "--package-version", "V5.30"])
  }
}
