import ArgumentParser
import BeaconCore
import CampaignPipeline
import Fleet
import Foundation
import Presence

/// `beacon-provision monitor spool list|retry|drop`: the webhook events a monitor spooled and
/// could not deliver yet, shown with their URL redacted (`RedactedURL`), sent now, or removed — so a
/// receiver gone for good, or a URL that was never usable, does not keep events for ever.
struct MonitorSpoolCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "spool", abstract: "List, send now or drop the webhook events waiting in the monitor's spool.",
    discussion: """
      The spool is in the state directory's journal (journal.sqlite). A running monitor keeps delivering what \
      is spooled; these commands can run beside it.

      Examples:
        beacon-provision monitor spool list
        beacon-provision monitor spool retry \\
            --webhook-header-file /etc/beacon/hook-headers
        beacon-provision monitor spool drop --id 17 --id 18
        beacon-provision monitor spool drop --all

      \(ExitStatus.group)
      """,
    subcommands: [MonitorSpoolListCommand.self, MonitorSpoolRetryCommand.self, MonitorSpoolDropCommand.self])

  /// The spool of `--state-dir`, or nil when that state directory has no journal yet.
  static func open(_ stateDir: String?) async throws -> WebhookSpool? {
    let path = CampaignResources.journalPath(StateDirectory.resolve(stateDir))
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    do {
      let journal = try await BlockingIO.run { try Journal(path: path) }
      return WebhookSpool(journal: journal)
    } catch {
      throw CLIFailure("cannot open the journal \(path): \(error)")
    }
  }

}

/// `--state-dir` of `monitor` and of `monitor spool …`: one option group shared by the command and its
/// subcommands, so `monitor spool list --state-dir DIR` gets DIR (ArgumentParser hands a subcommand the
/// value its parent decoded for the same group; with an `@Option` of each, the parent's took the value and
/// the subcommand saw none).
struct MonitorStateDirectory: ParsableArguments {
  @Option(
    help:
      "Where the spool and fleet registry (and the simulated fleet's state) live. Default: $XDG_STATE_HOME/beacon-provision."
  )
  var stateDir: String?
}
