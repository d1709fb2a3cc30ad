import ArgumentParser
import Logging

/// `--log-level LEVEL` and `-v`/`--verbose`, shared by the commands that talk to devices (`scan`, `plan`,
/// `apply`, `read`, `ring`, `reset`, `history`, `gatt …`). Records go to standard error, one line each
/// (`StderrLogHandler`), so standard output stays clean for `--json`. Default level: warning, i.e. quiet;
/// `-v` is info (connections, authentication, campaign steps), `-vv` debug (each step and retry),
/// `--log-level trace` everything. Passwords are never logged: what is logged names where a password came
/// from, never its value.
public struct LoggingOptions: ParsableArguments, Sendable {
  @Option(
    name: .customLong("log-level"),
    help: ArgumentHelp(
      "trace, debug, info, notice, warning, error or critical (default warning; -v info, -vv debug).",
      valueName: "level"))
  public var level: Logger.Level?

  @Flag(
    name: [.customShort("v"), .customLong("verbose")], help: "Log what the tool does to standard error; -vv for more.")
  public var verbosity: Int

  public init() {}

  /// `--log-level` when given, else warning lowered one step per `-v` (info, then debug, then trace).
  public var effectiveLevel: Logger.Level {
    if let level { return level }
    switch verbosity {
    case 0: return .warning
    case 1: return .info
    case 2: return .debug
    default: return .trace
    }
  }

  /// Runs `body` with log records at `effectiveLevel` and above written to standard error.
  public func activate<T>(_ body: () async throws -> T) async rethrows -> T {
    try await CLILog.$destination.withValue(CLILog.Destination(level: effectiveLevel, write: CLILog.standardError)) {
      try await body()
    }
  }
}

/// A command with `LoggingOptions`: `BeaconProvision.runAsRoot` runs it inside `logging.activate`.
protocol LoggingCommand {
  var logging: LoggingOptions { get }
}

/// `--log-level debug`. Retroactive on purpose: swift-log and ArgumentParser are both outside the package, and
/// a wrapper type would only rename `Logger.Level` for the option.
// swift-format-ignore: AvoidRetroactiveConformances
extension Logger.Level: @retroactive ExpressibleByArgument {}
