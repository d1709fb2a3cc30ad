import ArgumentParser
import BeaconCore
import Foundation
import Logging
import OwnThreads

/// `beacon-provision scan`: discover beacons and decode what they advertise, grouped in discovery windows
/// (blukii discovery settings, docs/protocols/info-manager.md, "The SDK's classes": window length, RSSI threshold, first-seen time, each frame kind
/// kept once per window — the first one).
struct ScanCommand: AsyncParsableCommand, LoggingCommand {
  static let configuration = CommandConfiguration(
    commandName: "scan",
    abstract: "Discover beacons and decode their advertising (iBeacon, Eddystone, KKM KSensor/System).",
    discussion: """
      On a terminal a live table is redrawn in place; otherwise one line per device is printed as each window \
      closes. --json prints the final device records as a JSON array; --jsonl prints one JSON object per device \
      per window as windows close. Every device heard is recorded in the fleet registry in the state \
      directory (a registry that cannot be written only warns).

      \(ExitStatus.paragraph("0 done (also when stopped with Ctrl-C); 1 an error (no such adapter, the scan failed)"))
      """)

  @OptionGroup var adapterOptions: AdapterOptions

  @Option(help: ArgumentHelp("How long to scan, in seconds.", valueName: "seconds"))
  var duration: Double = 10

  @Option(
    help: ArgumentHelp(
      "Length of one discovery window, in seconds (default: the whole duration).", valueName: "seconds"))
  var window: Double?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Drop reports weaker than this RSSI, in dBm (e.g. -80).", valueName: "dBm"))
  var rssiThreshold: Int8?

  @Flag(help: "Passive scanning: no scan requests, so no scan responses (names, KKM 0x2080 data).")
  var passive = false

  @OptionGroup var scanBackend: ScanBackendOption

  @Option(
    help: "Where the fleet registry (and the simulated fleet's state) live. Default: $XDG_STATE_HOME/beacon-provision.")
  var stateDir: String?

  @OptionGroup var journalLocation: JournalLocationOptions
  @OptionGroup var logging: LoggingOptions

  @Flag(help: "Print the final device records as a JSON array.")
  var json = false

  @Flag(help: "Print one JSON object per device per window, as windows close.")
  var jsonl = false

  func validate() throws {
    try SecondsOption.validate(duration, "--duration")
    try SecondsOption.validate(window, "--window")
    if json && jsonl { throw ValidationError("choose one of --json and --jsonl") }
  }

  func run() async throws {
    try RegistryAccess.checkShared(journalLocation)
    let central = try await CentralFactory.make(
      adapterOptions.adapter, scanBackend: scanBackend.value, stateDirectory: stateDir)
    let mode: ScanRunner.Mode = json ? .json : jsonl ? .jsonLines : (isatty(STDOUT_FILENO) == 1 ? .liveTable : .lines)
    let runner = runner(mode: mode)
    CLILog.logger("scan").info("scanning", metadata: ["adapter": "\(central.name)", "seconds": "\(duration)"])
    do {
      // Ctrl-C (or SIGTERM) ends the scan early instead of killing the process: what was heard so far is
      // printed, and a live scan is switched off in the controller/kernel before the process exits.
      let session = try await SignalCancellation.run {
        try await runner.scan(central: central) { line in Self.writeLine(line) }
      }
      await central.stopScans()
      if let output = try runner.output(of: session) { Self.writeLine(output) }
      // After the results are out; a registry that cannot be opened or written only warns (`RegistryAccess`).
      await RegistryAccess.open(stateDirectory: StateDirectory.resolve(stateDir), location: journalLocation)?
        .sightings(session.results)
    } catch {
      await central.stopScans()
      throw liveFailure(error)
    }
  }

  /// Writes straight to file descriptor 1 (unbuffered), so `--jsonl` lines reach a pipe as windows close.
  static func writeLine(_ line: String) {
    Interrupted.writeAll(STDOUT_FILENO, Array((line + "\n").utf8))
  }

  var settings: DiscoverySettings {
    DiscoverySettings(window: seconds(window ?? duration), rssiThreshold: rssiThreshold)
  }

  private func seconds(_ value: Double) -> Duration { .nanoseconds(Int64((value * 1e9).rounded())) }

  /// The runner for this command line, printing in `mode` (tests use this to run the command in process).
  func runner(mode: ScanRunner.Mode) -> ScanRunner {
    ScanRunner(settings: settings, duration: seconds(duration), active: !passive, mode: mode)
  }
}
