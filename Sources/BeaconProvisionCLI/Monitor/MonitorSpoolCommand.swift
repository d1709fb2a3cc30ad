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
        beacon-provision monitor spool retry --webhook-header-file /etc/beacon/hook-headers
        beacon-provision monitor spool drop --id 17 --id 18
        beacon-provision monitor spool drop --all

      \(ExitStatus.group)
      """,
    subcommands: [MonitorSpoolList.self, MonitorSpoolRetry.self, MonitorSpoolDrop.self])

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

/// `monitor spool list`: one line per spooled event, oldest first.
struct MonitorSpoolList: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list", abstract: "The spooled webhook events, oldest first (URLs redacted).",
    discussion: ExitStatus.paragraph("0 listed (also when nothing is spooled); 1 the journal cannot be read"))

  @OptionGroup var stateOption: MonitorStateDirectory
  var stateDir: String? { stateOption.stateDir }

  func run() async throws { try await run(write: Scan.writeLine) }

  func run(write: @Sendable (String) -> Void) async throws {
    guard let spool = try await MonitorSpoolCommand.open(stateDir) else {
      write("the webhook spool is empty (no journal in \(StateDirectory.resolve(stateDir)))")
      return
    }
    let entries = try await spool.entries()
    guard !entries.isEmpty else {
      write("the webhook spool is empty")
      return
    }
    write("ID      SPOOLED                   TRIES  EVENT                          URL  (LAST ERROR)")
    for e in entries {
      let url = RedactedURL(e.item.url)
      var line = [
        "\(e.id)".padded(7), EventTime.text(e.createdAt).padded(25), "\(e.attempts)".padded(6),
        e.item.idempotencyKey.padded(30), url.description,
      ].joined(separator: " ")
      if let problem = WebhookURL.problem(e.item.url) {
        line += "  (unusable: \(problem))"
      } else if let error = e.lastError {
        line += "  (\(url.scrub(error)))"
      }
      write(line)
    }
    let urls = Set(entries.map(\.item.url)).count
    write("\(entries.count) event\(entries.count == 1 ? "" : "s") for \(urls) URL\(urls == 1 ? "" : "s")")
  }
}

/// `monitor spool retry`: sends every spooled event now, per URL in spool order, stopping at a URL's first
/// failure (later events of that URL would overtake it). Exit 0 when nothing is left of what was tried, 1
/// when some stays spooled.
struct MonitorSpoolRetry: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "retry", abstract: "Send the spooled webhook events now; what fails stays spooled.",
    discussion: ExitStatus.paragraph(
      "0 every event was delivered (or refused for good, and dropped); 1 some stay spooled"))

  @OptionGroup var stateOption: MonitorStateDirectory
  var stateDir: String? { stateOption.stateDir }
  @Option(
    help: ArgumentHelp("Headers sent with every POST, one 'Name: value' a line (as monitor's).", valueName: "file"))
  var webhookHeaderFile: String?
  @OptionGroup var tls: TLSOptions

  func run() async throws { try await run(poster: nil, write: Scan.writeLine) }

  func run(poster given: (any WebhookPoster)?, write: @escaping @Sendable (String) -> Void) async throws {
    let headers = try webhookHeaderFile.map { try WebhookHeaderFile.load($0) } ?? WebhookHeaders()
    guard let spool = try await MonitorSpoolCommand.open(stateDir) else {
      write("the webhook spool is empty")
      return
    }
    let poster =
      given
      ?? CurlWebhookPoster(caFile: tls.caFile, insecureSkipTLSVerify: tls.insecureSkipTLSVerify, extraHeaders: headers)
    let delivery = WebhookDelivery(spool: spool, poster: poster, warn: write)
    var delivered = 0
    var refused = 0
    for (url, _) in try await spool.depths() {
      let shown = RedactedURL(url)
      if let problem = WebhookURL.problem(url) {
        write("\(shown): not sent: \(problem)")
        continue
      }
      while let head = try await spool.head(url: url) {
        let outcome = await delivery.attempt(head)
        if outcome == .delivered {
          delivered += 1
        } else if outcome == .refused {
          refused += 1
        } else {
          let reason = try await spool.entry(head.id)?.lastError ?? "?"
          write("\(shown): failed: \(shown.scrub(reason))")
          break
        }
      }
    }
    let left = try await spool.count()
    write("delivered \(delivered), refused and dropped \(refused), still spooled \(left)")
    if left > 0 { throw ExitCode(1) }
  }
}

/// `monitor spool drop`: removes spooled events by id, or all of them.
struct MonitorSpoolDrop: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "drop", abstract: "Remove spooled webhook events (by --id, or --all); they are not sent.",
    discussion: ExitStatus.paragraph("0 removed; 1 the journal cannot be read or written"))

  @OptionGroup var stateOption: MonitorStateDirectory
  var stateDir: String? { stateOption.stateDir }
  @Option(help: ArgumentHelp("An event's id (from 'monitor spool list'); repeatable.", valueName: "id")) var id:
    [Int64] = []
  @Flag(help: "Every spooled event.") var all = false

  func validate() throws {
    guard all != !id.isEmpty else { throw ValidationError("give either --id (one or more) or --all") }
  }

  func run() async throws { try await run(write: Scan.writeLine) }

  func run(write: @Sendable (String) -> Void) async throws {
    guard let spool = try await MonitorSpoolCommand.open(stateDir) else {
      write("the webhook spool is empty")
      return
    }
    let n = all ? try await spool.dropAll() : try await spool.drop(ids: id)
    let missing = all ? 0 : id.count - n
    write(
      "dropped \(n) event\(n == 1 ? "" : "s")" + (missing > 0 ? " (\(missing) of the ids given were not spooled)" : ""))
  }
}
