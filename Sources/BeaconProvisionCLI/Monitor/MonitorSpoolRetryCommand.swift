import ArgumentParser
import BeaconCore
import CampaignPipeline
import Fleet
import Foundation
import Presence

/// `monitor spool retry`: sends every spooled event now, per URL in spool order, stopping at a URL's first
/// failure (later events of that URL would overtake it). Exit 0 when nothing is left of what was tried, 1
/// when some stays spooled.
struct MonitorSpoolRetryCommand: AsyncParsableCommand {
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

  func run() async throws { try await run(poster: nil, write: ScanCommand.writeLine) }

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
