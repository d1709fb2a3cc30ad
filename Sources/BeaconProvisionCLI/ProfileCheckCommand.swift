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
    let preflight = TemplatePreflight(
      profile: loaded, resolver: DesiredResolver(urlCheck: ProfileFiles.eddystoneURLCheck))
    if let report = preflight.report(addresses: TargetSelection.namedAddresses(of: loaded) ?? []) {
      throw CLIFailure(report)
    }
    let p = loaded.profile
    print("\(file): valid profile version \(Profile.currentVersion)")
    if let commands = p.commands {
      let secret = commands.filter(\.secret).count
      print(
        "  text-stream devices: \(commands.count) command\(commands.count == 1 ? "" : "s") (query, expect, set)"
          + (secret > 0 ? ", \(secret) secret" : ""))
    } else {
      let d = p.desired
      print(
        "  manages \(Self.count(d.common.fields.count, "device key")), \(Self.count(d.slots.count, "slot")), "
          + "\(Self.count(d.triggers.count, "trigger")), \(Self.count(d.sensors.count, "sensor"))")
    }
    if let inventory = loaded.inventory { print("  inventory: \(Self.count(inventory.rows.count, "device"))") }
    if let warning = RenameSelectionCheck.warning(loaded) { print(warning) }
    for warning in Self.passwordWarnings(p.auth, profile: file) { print(warning) }
  }

  /// Where `auth` points that cannot be read on this machine (a variable not set, a password file missing or
  /// empty): warnings, not errors — the profile may be checked on another machine than the gateway — but
  /// `plan` and `apply` here would stop on them. The passwords read are dropped at once, never shown.
  static func passwordWarnings(_ auth: Auth, profile: String) -> [String] {
    let sources = [(auth.password, "password")] + (auth.newPassword.map { [($0, "newPassword")] } ?? [])
    return sources.compactMap { source, field in
      do {
        _ = try Secrets.read(source, field: field, profile: profile)
        return nil
      } catch {
        return "  warning: \(error) (plan and apply on this machine would stop here)"
      }
    }
  }

  static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
}
