import ArgumentParser
import BeaconCore
import CampaignPipeline
import Fleet
import Foundation
import Presence

/// `monitor spool list`: one line per spooled event, oldest first.
struct MonitorSpoolListCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list", abstract: "The spooled webhook events, oldest first (URLs redacted).",
    discussion: ExitStatus.paragraph("0 listed (also when nothing is spooled); 1 the journal cannot be read"))

  @OptionGroup var stateOption: MonitorStateDirectory
  var stateDir: String? { stateOption.stateDir }

  func run() async throws { try await run(write: ScanCommand.writeLine) }

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
