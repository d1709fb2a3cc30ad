import ArgumentParser
import CampaignPipeline
import Profiles

/// `beacon-provision profile check PROFILE`.
struct ProfileCheckCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check",
    abstract: "Validate a profile and its inventory; print every problem with file:line:column and JSON path.",
    discussion: ExitStatus.discussion("Nothing is sent to any device.", codes: "0 valid; 1 invalid"))

  @Argument(help: "The profile (JSON).")
  var file: String

  func run() throws {
    let loaded = try ProfileFiles.load(file)
    // Every templated value of the devices the profile names, as a campaign checks it before any radio work.
    let problems = TemplatePreflight(
      profile: loaded, resolver: DesiredResolver(urlCheck: ProfileFiles.eddystoneURLCheck)
    )
    .problems(addresses: TargetSelection.namedAddresses(of: loaded) ?? [])
    guard problems.isEmpty else { throw CLIFailure(problems.joined(separator: "\n")) }
    let p = loaded.profile
    print("\(file): valid profile version \(Profile.currentVersion)")
    if let commands = p.commands {
      let secret = commands.filter(\.secret).count
      print(
        "  text-stream devices: \(commands.count) command\(commands.count == 1 ? "" : "s") (query, expect, set)"
          + (secret > 0 ? ", \(secret) secret" : ""))
    } else {
      print(
        "  manages \(p.desired.common.fields.count) device keys, \(p.desired.slots.count) slots, \(p.desired.triggers.count) triggers, \(p.desired.sensors.count) sensors"
      )
    }
    if let inventory = loaded.inventory { print("  inventory: \(inventory.rows.count) devices") }
    if let warning = RenameSelectionCheck.warning(loaded) { print(warning) }
  }
}
