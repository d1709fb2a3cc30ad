import ArgumentParser
import Foundation
import BeaconCore
import Profiles

/// `beacon-provision profile …`: work with profile files without touching any device.
struct ProfileCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "profile",
    abstract: "Check a profile, or print the profile JSON Schema.",
    subcommands: [Check.self, Schema.self])

  struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Validate a profile and its inventory; print every problem with file:line:column and JSON path.",
      discussion: "Exit status: 0 valid, 1 invalid. Nothing is sent to any device.")

    @Argument(help: "The profile (JSON).")
    var file: String

    func run() throws {
      let loaded = try ProfileFiles.load(file)
      try CampaignRunner.check(
        TemplatePreflight(profile: loaded, resolver: DesiredResolver(urlCheck: ProfileFiles.eddystoneURLCheck)),
        TargetSelection.namedAddresses(of: loaded) ?? [])
      let p = loaded.profile
      print("\(file): valid profile version \(Profile.currentVersion)")
      print("  manages \(p.desired.common.fields.count) device keys, \(p.desired.slots.count) slots, \(p.desired.triggers.count) triggers, \(p.desired.sensors.count) sensors")
      if let inventory = loaded.inventory { print("  inventory: \(inventory.rows.count) devices") }
      if let warning = RenameSelectionCheck.warning(loaded) { print(warning) }
    }
  }

  struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the JSON Schema of profile version 1.")
    func run() { print(ProfileSchema.document(), terminator: "") }
  }
}

/// Reading profiles from disk for the commands: file I/O at the edge, decoding in `Profiles`.
enum ProfileFiles {
  static func load(_ file: String) throws -> LoadedProfile {
    do {
      return try LoadedProfile.load(
        file: file, read: { path in
          guard let data = FileManager.default.contents(atPath: path) else { throw CLIFailure("no such file: \(path)") }
          return Array(data)
        }, urlCheck: eddystoneURLCheck)
    } catch {
      throw CLIFailure(error.description)
    }
  }

  /// The Eddystone-URL encodability rule profiles are checked with: the scanner's own encoder
  /// (beacon-formats.md §2), so what a profile accepts is exactly what can be advertised.
  static let eddystoneURLCheck: FieldCheck.URLCheck = { url in
    do {
      _ = try EddystoneURLCodec.encode(url)
      return nil
    } catch {
      return String(describing: error)
    }
  }
}
