import ArgumentParser

/// `beacon-provision profile …`: work with profile files without touching any device.
struct ProfileCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "profile",
    abstract: "Check a profile, or print the profile JSON Schema.",
    discussion: ExitStatus.group,
    subcommands: [ProfileCheckCommand.self, ProfileSchemaCommand.self])
}
