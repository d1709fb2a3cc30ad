import ArgumentParser

/// `beacon-provision sim …`: the built-in simulated fleet.
struct SimCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sim",
    abstract: "Manage the simulated fleet (--adapter sim).",
    discussion: """
      Simulated devices keep their configuration between runs, in the state directory, like real devices \
      do. `sim reset` brings the fleet back as built in.

      \(ExitStatus.group)
      """,
    subcommands: [SimResetCommand.self, SimServeCommand.self])
}
