import ArgumentParser
import BeaconCore

/// The root command. Each subcommand lives in its own file; this list is the one place they are named.
public struct BeaconProvision: AsyncParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "beacon-provision",
    abstract: "Keep a fleet of BLE beacons configured and up to date.",
    discussion: """
      Scan and decode beacons, read and write KKM KBeacon configuration, apply a declarative profile to many \
      devices at once, and run Nordic Secure DFU firmware campaigns — over a BlueZ adapter (hci0, …) or the \
      built-in simulated fleet (--adapter sim).

      Start with:  beacon-provision scan --adapter sim

      \(ExitStatus.group)
      """,
    version: VersionText.render(),
    subcommands: BeaconProvision.commands + BeaconProvision.hiddenCommands
  )

  /// Every subcommand, in the order `--help` lists them.
  static let commands: [any ParsableCommand.Type] = [
    ScanCommand.self,
    DecodeCommand.self,
    PlanCommand.self,
    ApplyCommand.self,
    AuditCommand.self,
    MonitorCommand.self,
    ReconcileCommand.self,
    CampaignCommand.self,
    RunsCommand.self,
    GATTCommand.self,
    TxrxCommand.self,
    DFUCommand.self,
    FirmwareCommand.self,
    ResolveCommand.self,
    NewsCommand.self,
    ProfileCommand.self,
    ReadCommand.self,
    RingCommand.self,
    ResetCommand.self,
    HistoryCommand.self,
    SimCommand.self,
    AdaptersCommand.self,
  ]

  /// Subcommands left out of `--help`: low-level checks used by the VM tier (`radio …`).
  static let hiddenCommands: [any ParsableCommand.Type] = [
    RadioCommand.self
  ]

  public init() {}
}

extension BeaconProvision {
  /// Parses `CommandLine.arguments` and runs the chosen command, async or not. Errors print as one line
  /// (`Error: …`) with ArgumentParser's exit codes; `CLIFailure` carries its own exit code, and its message
  /// is printed with control characters escaped (`TerminalText`).
  public static func runAsRoot(_ arguments: [String]? = nil) async {
    do {
      var command = try parseAsRoot(
        NegativeOptionValues.joined(arguments ?? Array(CommandLine.arguments.dropFirst())))
      if var asyncCommand = command as? any AsyncParsableCommand {
        // -v / --log-level: the command runs with its log records going to standard error.
        let logging = (command as? any LoggingCommand)?.logging
        if let logging {
          try await logging.activate { try await asyncCommand.run() }
        } else {
          try await asyncCommand.run()
        }
      } else {
        try command.run()
      }
    } catch let failure as CLIFailure {
      // A failure may quote outside text (a profile's key, a device's answer): control characters escaped.
      FileHandleOutput.standardError(failureText(for: failure))
      exit(withError: ExitCode(failure.exitCode))
    } catch {
      // ArgumentParser's own errors quote what was typed ("Unknown option '…'", a value a validate()
      // refused): escaped too, with ArgumentParser's exit code. Help and --version go out as they are.
      guard let text = errorText(for: error) else { exit(withError: error) }
      FileHandleOutput.standardError(text)
      exit(withError: ExitCode(exitCode(for: error).rawValue))
    }
  }

  /// The line a `CLIFailure` prints: `Error: ` (as ArgumentParser's errors) and the message with control
  /// characters escaped and line breaks kept.
  static func failureText(for failure: CLIFailure) -> String {
    CLIFailure.linePrefix + TerminalText.escaped(failure.message, keepingLineBreaks: true)
  }

  /// The message ArgumentParser would print for a failing `error` (not help, not a bare exit code), with
  /// control characters escaped and line breaks kept; nil when ArgumentParser should print.
  static func errorText(for error: any Error) -> String? {
    guard exitCode(for: error) != .success else { return nil }
    let message = fullMessage(for: error)
    return message.isEmpty ? nil : TerminalText.escaped(message, keepingLineBreaks: true)
  }
}
