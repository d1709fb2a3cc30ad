import ArgumentParser
import BeaconCore
import CampaignPipeline
import Firmware
import Fleet
import Foundation
import NordicDFU
import Profiles

/// `beacon-provision dfu update --package FILE.zip` (the `dfu` default): a Secure DFU campaign over the
/// fleet (docs/protocols/nordic-dfu.md §2) on the shared campaign scheduler, like `apply`: package validated before any
/// connection, scan, selection, battery floor from advertisements, then per device identify → transfer →
/// identify again, with retries, the journal and `--resume`. With `--firmware latest|VERSION` instead of
/// `--package`, each device's package comes from the KKM catalogue (docs/protocols/kbeacon.md §11; see
/// `CatalogueCampaignPlanner`).
struct DFUUpdateCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "update",
    abstract: "Update every selected device in range over BLE with a DFU package (a firmware campaign).",
    discussion: """
      Per device: battery floor (from its advertisements), read model/hver/ver over an authenticated \
      KBeacon session, skip devices already at the package's version, buttonless entry into the bootloader \
      (found at the address +1), transfer with progress and resume, then read ver back. Every step goes to \
      the journal; Ctrl-C lets transfers in flight finish and leaves the rest pending for --resume.

      With --firmware latest (or a version) instead of --package, the packages come from the firmware \
      catalogue (--catalog, see 'firmware --help'): each device's model, hver and ver pick the newest release \
      newer than it; every package needed is downloaded and verified once, before any device enters its \
      bootloader; devices already current are skipped as up to date. --offline uses the firmware cache only.

      With --rollout canary=N,waves=P%,…,100% the devices (in address order) go in stages: N canary devices, \
      then each wave up to that percentage of the rest; a wave starts only when the one before had at most \
      --max-failures percent of its devices fail (default 0%: any failure stops). A device that did not come \
      back with the new version is a failure. Over it the rollout stops, says which wave, and leaves the \
      later devices untouched and pending; 'campaign status RUN' shows each wave and the rollout's verdict. \
      The operator decides, then --resume RUN continues the rollout with the plan the run recorded (a --rollout \
      given with it must be the same): each wave's unfinished and failed devices are visited in its turn, and \
      the wave that stopped is judged again once its failed devices were retried, so it stops again unless they \
      now pass — or unless --max-failures is given with --resume: it replaces the recorded threshold for the \
      resume, and a higher one accepts the wave that stopped.

      Exit status: 0 every selected device updated or skipped; 1 a device failed or the package was refused; \
      3 interrupted (resume with --resume RUN); 4 a rollout stopped over --max-failures; 130 a second Ctrl-C \
      (transfers in flight abandoned); \(ExitStatus.usage).

      Examples:
        beacon-provision dfu --package app_v530.zip --adapter sim
        beacon-provision dfu update --firmware latest \\
            --catalog firmware/example --adapter sim
        beacon-provision dfu update --package app.zip --adapter sim \\
            --rollout canary=2,waves=10%,25%,100% --max-failures 5%
        BEACON_PASSWORD=… beacon-provision dfu update --package app.zip \\
            --adapter hci0 --model 'KBPro*' --hardware V1.0
      """)

  @Option(help: ArgumentHelp("The DFU package (.zip); or use --firmware.", valueName: "zip"))
  var package: String?

  @Option(
    help: ArgumentHelp(
      "Take each device's package from the firmware catalogue: latest, or a version like V5.14.",
      valueName: "latest|version"))
  var firmware: String?

  @OptionGroup var firmwareSource: FirmwareSourceOptions

  @OptionGroup var adapterOptions: AdapterOptions

  @OptionGroup var scanBackend: ScanBackendOption

  @Option(name: .customLong("address"), help: ArgumentHelp("Only this device (repeatable).", valueName: "address"))
  var addresses: [String] = []

  @Option(help: ArgumentHelp("Only devices whose advertised name matches this glob.", valueName: "glob"))
  var name: String?

  @Option(
    help: ArgumentHelp(
      "Only devices whose model (read over the link) matches this glob (repeatable). A --resume finishes a device its run left in its bootloader regardless.",
      valueName: "glob"))
  var model: [String] = []

  @Option(
    help: ArgumentHelp(
      "Only devices whose hardware version (hver) is this. A --resume finishes a device its run left in its bootloader regardless.",
      valueName: "hver"))
  var hardware: String?

  /// `--package-version`, not `--version`, which every command keeps for the tool's own version.
  @Option(
    name: .customLong("package-version"),
    help: ArgumentHelp(
      "The version the package installs (default: from its application's init packet).", valueName: "version"))
  var version: String?

  @Option(
    name: .customLong("min-battery"),
    help:
      "Skip devices whose advertised battery is below this percentage (unknown battery: skipped; 0: no floor, unknown included). A --resume finishes a device its run left mid-transfer whatever its battery."
  )
  var minimumBattery = 30

  @Option(name: .customLong("scan"), help: "Seconds to scan for devices before connecting.")
  var scanSeconds: Double = 5

  @Option(help: "Links at once on the adapter.")
  var parallel: Int = 2

  @Option(help: "Attempts per device for transient failures (link loss, timeout).")
  var attempts: Int = 3

  @Option(help: "Seconds before the first retry of a device; later retries wait 4× longer (at most 60 s).")
  var retryDelay: Double = 5

  @Option(
    help: ArgumentHelp(
      "Finish an interrupted run: its id (printed when the run starts and at its end), or last for the newest dfu run.",
      valueName: "run|last"))
  var resume: String?

  @Option(
    help: ArgumentHelp(
      "Update in stages: N canary devices, then waves up to these percentages of the rest (see above).",
      valueName: "canary=N,waves=P%,…,100%"))
  var rollout: String?

  @Option(
    name: .customLong("max-failures"),
    help: ArgumentHelp(
      "With --rollout: the failures a wave may have, in percent of its devices, for the next to start (default 0%); with --resume of a rollout, replaces the recorded one.",
      valueName: "P%"))
  var maxFailures: String?

  @Option(help: "Packet receipt notification interval (0 = off).")
  var prn: UInt16 = 12

  @Option(
    name: .customLong("object-delay"), help: "Milliseconds to wait after creating each data object (KKM uses 300).")
  var objectDelay = 300

  @Option(name: .customLong("reconnect-delay"), help: "Seconds to wait before reopening a dropped DFU link.")
  var reconnectDelay: Double = 0.5

  @Option(help: "Seconds to wait for each response.")
  var timeout: Double = 10

  @Option(help: "Where the journal (and the simulated fleet's state) live.")
  var stateDir: String?

  @Flag(help: "Print the result as JSON on standard output (progress still goes to standard error).")
  var json = false

  @OptionGroup var password: PasswordOptions

  /// The identity reads before and after each update (`ver`, `model`, `hver`) go through the state
  /// directory's GATT cache, as `plan` and `apply` do; a new application with another GATT table changes its
  /// Database Hash, which drops its entry.
  @OptionGroup var gattCache: GATTCacheOptions

  @OptionGroup var deviceFacts: DFUDeviceOptions

  @OptionGroup(title: "Several gateways (a shared journal)") var shared: SharedJournalOptions

  @OptionGroup var logging: LoggingOptions

  func validate() throws {
    guard (package == nil) != (firmware == nil) else {
      throw ValidationError("give exactly one of --package FILE.zip and --firmware latest|VERSION")
    }
    if let firmware, FirmwareWanted(firmware) == nil {
      throw ValidationError("--firmware \(firmware) is not latest or a version like V5.14")
    }
    if firmware != nil, version != nil {
      throw ValidationError(
        "--package-version is for --package; with --firmware the catalogue says each package's version")
    }
    for a in addresses where BluetoothAddress(a) == nil {
      throw ValidationError("--address \(a) is not an address like C0:11:22:33:44:55")
    }
    guard (0...100).contains(minimumBattery) else { throw ValidationError("--min-battery must be 0…100") }
    guard parallel >= 1, parallel <= 16 else { throw ValidationError("--parallel must be 1…16") }
    guard attempts >= 1, attempts <= 10 else { throw ValidationError("--attempts must be 1…10") }
    try SecondsOption.validate(retryDelay, "--retry-delay", zeroAllowed: true, atMost: 60)
    try SecondsOption.validate(reconnectDelay, "--reconnect-delay", zeroAllowed: true, atMost: 60)
    try SecondsOption.validate(scanSeconds, "--scan", atMost: 600)
    try SecondsOption.validate(timeout, "--timeout")
    guard objectDelay >= 0 else { throw ValidationError("--object-delay must be ≥ 0") }
    if let version, FirmwareVersion(version) == nil {
      throw ValidationError("--package-version \(version) is not a version like V5.30")
    }
    _ = try rolloutPlan
    _ = try maxFailuresGiven
  }

  /// `--rollout` and `--max-failures` as a `RolloutPlan` (nil without `--rollout`); a wrong one is a usage error.
  /// `--max-failures` alone is for `--resume` of a rollout (`RolloutResume`).
  var rolloutPlan: RolloutPlan? {
    get throws {
      guard let rollout else {
        if maxFailures != nil, resume == nil {
          throw ValidationError(
            "--max-failures is for --rollout (or --resume of a rollout); give --rollout canary=N,waves=P%,…,100% too")
        }
        return nil
      }
      do {
        return try RolloutPlan(rollout: rollout, maxFailures: maxFailures)
      } catch {
        throw ValidationError(error.description)
      }
    }
  }

  /// `--max-failures` as given (nil: not given).
  var maxFailuresGiven: Int? {
    get throws {
      do {
        return try maxFailures.map(RolloutPlan.threshold)
      } catch {
        throw ValidationError(error.description)
      }
    }
  }

  func run() async throws {
    let result = try await DFUInvocation(command: self).run()
    print(json ? try DFUCampaignReport.json(result) : DFUCampaignReport.table(result))
    if let reason = result.rollout?.stopReason, !result.summary.interrupted {
      FileHandleOutput.standardError(
        "\(reason). Decide, then continue with  \(ResumeRun.command(result.finish, run: result.summary.run))")
    }
    if let status = Self.exitStatus(result) { throw ExitCode(status) }
  }

  /// The exit status of a finished run, nil for 0: 3 interrupted, 4 a rollout stopped over `--max-failures`,
  /// 1 a device failed.
  static func exitStatus(_ result: CampaignResult) -> Int32? {
    if result.summary.interrupted { return 3 }
    if result.rollout?.stopped == true { return 4 }
    return result.summary.failed ? 1 : nil
  }

  var stateDirectory: String { StateDirectory.resolve(stateDir) }
}
