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

  /// A catalogue run's hint names the catalogue and cache it was given (a resume without them found no catalogue:
  /// "no firmware catalogue: give --catalog URL…"), the catalogue's credentials left out.
  @Test func aCatalogueRunsHintNamesItsCatalogueWithoutItsPassword() throws {
    let command = try DFUUpdateCommand.parse([
      "--firmware", "latest", "--catalog", "https://ops:s3cret@fw.example/kbeacon/", "--firmware-dir", "/var/fw",
      "--adapter", "sim",
    ])
    let finish = DFUInvocation(command: command, pace: .unpaced, central: nil).finishArguments
    #expect(
      ResumeRun.command(finish, run: "R")
        == "beacon-provision dfu update --firmware latest --catalog https://fw.example/kbeacon/ "
        + "--firmware-dir /var/fw --adapter sim --resume R")
    let local = try DFUUpdateCommand.parse(["--firmware", "5.31", "--catalog", "firmware/example", "--adapter", "sim"])
    #expect(
      DFUInvocation(command: local, pace: .unpaced, central: nil).finishArguments
        == ["dfu", "update", "--firmware", "5.31", "--catalog", "firmware/example", "--adapter", "sim"])
  }
}
