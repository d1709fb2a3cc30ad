import ArgumentParser
import Testing

@testable import BeaconProvisionCLI

/// Every command's `--help`, hidden ones included, states its exit codes: a command with subcommands says where
/// to look, every other command lists its own codes from 0, and all of them name 64, ArgumentParser's usage
/// error (`ExitStatus`). Walks the command tree from `BeaconProvision.configuration`, so a new command is
/// checked without being named here.
@Suite(.timeLimit(.minutes(1))) struct ExitStatusHelpTests {
  /// Every command under `command` (itself first), with its path of command names.
  static func commands(under command: any ParsableCommand.Type, path: [String] = []) -> [(
    path: String, type: any ParsableCommand.Type
  )] {
    let path = path + [command._commandName]
    return [(path.joined(separator: " "), command)]
      + command.configuration.subcommands.flatMap { commands(under: $0, path: path) }
  }

  @Test func everyHelpStatesItsExitCodesAndTheUsageError() {
    let all = Self.commands(under: BeaconProvision.self)
    #expect(all.count >= 45, "the walk found only \(all.map(\.path))")
    for (path, command) in all {
      // Wide columns: no line breaks inside the paragraph.
      let help = BeaconProvision.helpMessage(for: command, includeHidden: true, columns: 10_000)
      let own = command.configuration.subcommands.isEmpty ? "Exit status: 0 " : "Exit status: "
      #expect(help.contains(own), "\(path) --help states no exit codes")
      #expect(help.contains("64 a usage error"), "\(path) --help does not say that a usage error exits 64")
    }
  }

  @Test func aUsageErrorExitsWithTheCodeTheHelpStates() {
    #expect(ExitStatus.usageCode == ExitCode.validationFailure.rawValue)
    #expect(BeaconProvision.exitCode(for: ValidationError("x")).rawValue == ExitStatus.usageCode)
  }
}
