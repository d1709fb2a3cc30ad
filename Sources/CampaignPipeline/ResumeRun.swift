import Fleet
import Foundation

/// `--resume RUN|last` of `apply` and `dfu update`, and the command line that finishes a run (the run
/// id used to be printed only at the end, so after a `kill -9` or a second Ctrl-C `--resume` had nothing to go on,
/// and the hint at the end printed a literal `--package FILE`).
public enum ResumeRun {
  /// The word `--resume` takes for the newest run of the command's kind.
  public static let latest = "last"

  /// The run `--resume` names: `given` as it is, or for `last` the newest run of `kind` in `journal` (by
  /// start time, whatever its state: a finished one has nothing left to do, which its resume then says).
  public static func resolve(_ given: String, kind: String, journal: any CampaignJournal, place: String) async throws
    -> String
  {
    guard given == latest else { return given }
    guard let run = try await journal.runs().filter({ $0.kind == kind }).max(by: { $0.startedAt < $1.startedAt }) else {
      throw CampaignFailure("--resume last: there is no \(kind) run in \(place) to resume")
    }
    return run.id
  }

  /// `beacon-provision ARGUMENTS --resume RUN`, each argument quoted for a POSIX shell where it needs it.
  public static func command(_ arguments: [String], run: String) -> String {
    (["beacon-provision"] + arguments.map(shellQuoted) + ["--resume", run]).joined(separator: " ")
  }

  /// The line printed (standard error) as soon as a run has its id, before any device is touched.
  public static func startLine(run: String, finish arguments: [String]) -> String {
    "run \(run) started; if it is cut short, finish it with  \(command(arguments, run: run))  (or --resume last)"
  }

  /// `text` as one shell word: as it is when it has only safe characters, else in single quotes.
  public static func shellQuoted(_ text: String) -> String {
    let safe = text.unicodeScalars.allSatisfy { s in
      ("a"..."z").contains(s) || ("A"..."Z").contains(s) || ("0"..."9").contains(s)
        || "/._-+:=@,%".unicodeScalars.contains(s)
    }
    return safe && !text.isEmpty ? text : "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
  }
}
