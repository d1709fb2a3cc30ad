import ArgumentParser
import CampaignPipeline
import Fleet
import FleetIO
import Foundation

/// `beacon-provision campaign status RUN`: one run across every gateway.
struct CampaignCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "campaign", abstract: "Follow a campaign (apply or dfu update run) across gateways.",
    discussion: ExitStatus.group,
    subcommands: [CampaignStatusCommand.self])
}
