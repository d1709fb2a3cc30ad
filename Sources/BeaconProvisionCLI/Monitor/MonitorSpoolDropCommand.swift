import ArgumentParser
import BeaconCore
import CampaignPipeline
import Fleet
import Foundation
import Presence

/// `monitor spool drop`: removes spooled events by id, or all of them.
struct MonitorSpoolDropCommand: AsyncParsableCommand {
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

  func run() async throws { try await run(write: ScanCommand.writeLine) }

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
