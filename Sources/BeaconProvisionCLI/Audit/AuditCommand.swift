import ArgumentParser
import Audit
import BeaconCore
import Foundation

/// `beacon-provision audit [PROFILE…]`: the state of the fleet — who is missing, who drifted, whose battery
/// is low, who runs old firmware — as Markdown, JSON, CSV or one self-contained HTML file.
struct AuditCommand: AsyncParsableCommand, LoggingCommand {
  static let configuration = CommandConfiguration(
    commandName: "audit",
    abstract: "Report the fleet's real state and its drift from the profiles (Markdown, JSON, CSV or HTML).",
    discussion: """
      Scans for the whole --scan time and judges every device heard or named:
        compliant    heard, nothing differs from its profile
        drifted      what it advertises (or, with --connect, its configuration) differs
        unreachable  --connect: heard, but its configuration could not be read
        missing      named by an inventory or profile, not heard
        unknown      heard, but no inventory or profile names or selects it
      and flags low batteries, firmware older than the newest in the firmware cache (--catalog), and devices \
      whose last apply or DFU run failed. Passive by default: advertisements only, no connection. --connect \
      also reads each selected device (the plan path: nothing is ever written).

      Every scan, plan, apply, dfu and audit also keeps the fleet registry in the state directory current \
      (last seen, battery and RSSI history, versions, last runs), so devices heard earlier are reported \
      with what was known of them.

      When a blukii Info Manager is configured (--info-manager, $BEACON_PROVISION_INFO_MANAGER or the config \
      file; see resolve --help), blukii modules heard get an Info Manager column: registered, not registered \
      (deployed but missing from the Info Manager) or unknown (the server could not be reached).

      Exit status: 0 done; 1 error; with --detailed-exitcode, 2 when a device drifted, is missing or unreachable; \
      \(ExitStatus.usage).

      Examples:
        beacon-provision audit profiles/retail-ibeacon.json --adapter sim \\
            --format html --output audit.html
        beacon-provision audit site.json --inventory site.csv --adapter hci0 \\
            --connect --format json
        beacon-provision audit site.json --adapter hci0 --format csv \\
            --output fleet.csv --detailed-exitcode
      """)

  @Argument(help: "Profiles (JSON) that say what the devices should be; a device goes to the first that selects it.")
  var profiles: [String] = []

  @Option(
    help: ArgumentHelp(
      "An inventory (CSV or JSON, as a profile's) naming more devices: missing when not heard; its tags group the report.",
      valueName: "file"))
  var inventory: String?

  @OptionGroup var adapterOptions: AdapterOptions

  @OptionGroup var scanBackend: ScanBackendOption

  @Option(name: .customLong("scan"), help: "Seconds to scan (the whole time: unknown devices are heard too).")
  var scanSeconds: Double = 10

  @Flag(help: "Also connect to each selected device and read its configuration (never a write).")
  var connect = false

  @Option(help: "--connect: links at once on the adapter.")
  var parallel: Int = 4

  @Option(
    help: ArgumentHelp("Output format; default from --output's extension, else md.", valueName: "json|csv|md|html"))
  var format: AuditFormat?

  @Option(
    name: .shortAndLong, help: ArgumentHelp("Write the report here instead of standard output.", valueName: "file"))
  var output: String?

  @Flag(help: "Exit 2 when a device drifted, is missing or unreachable; 0 when all is well; 1 on error.")
  var detailedExitcode = false

  @Flag(
    help: ArgumentHelp(
      "Leave out the rows of devices no profile or inventory manages (phones, neighbours' beacons); they are "
        + "still counted, apart from the managed devices every share is taken of."))
  var hideUnmanaged = false

  @Option(help: ArgumentHelp("Flag batteries under this percentage.", valueName: "percent"))
  var lowBattery: Int = 20

  @Option(help: ArgumentHelp("Flag batteries under this voltage (devices that report millivolts).", valueName: "mV"))
  var lowBatteryMv: Int = 2500

  @Option(
    name: .customLong("catalog"),
    help: ArgumentHelp(
      "Firmware catalogue base whose cached copy says which firmware is newest (read from the cache only; "
        + "default as for `firmware`: $BEACON_PROVISION_CATALOG or the config file).", valueName: "url"))
  var catalog: String?

  @Option(name: .customLong("firmware-dir"), help: ArgumentHelp("The firmware cache folder.", valueName: "dir"))
  var firmwareDirectory: String?

  @Option(help: "Where the journal and the fleet registry live. Default: $XDG_STATE_HOME/beacon-provision.")
  var stateDir: String?

  /// `--connect` reads each device as `plan` does, with the same GATT cache (`GATTCacheOptions`).
  @OptionGroup var gattCache: GATTCacheOptions

  @OptionGroup(title: "Several gateways (the registry they share)") var journal: JournalLocationOptions

  @OptionGroup(title: "blukii Info Manager (adds an Info Manager column for blukii modules when configured)")
  var infoManager: InfoManagerOptions

  @OptionGroup var logging: LoggingOptions

  func validate() throws {
    try SecondsOption.validate(scanSeconds, "--scan", atMost: 600)
    guard (1...16).contains(parallel) else { throw ValidationError("--parallel must be 1…16") }
    guard (0...100).contains(lowBattery) else { throw ValidationError("--low-battery must be 0…100 (percent)") }
    guard (0...5000).contains(lowBatteryMv) else { throw ValidationError("--low-battery-mv must be 0…5000 (mV)") }
    if connect && profiles.isEmpty {
      throw ValidationError("--connect needs a profile: it reads what a profile selects")
    }
    if let output { try AuditOutputPath(path: output).validate(format: format) }
  }

  /// The format asked for, else the one `--output`'s extension names, else Markdown.
  var chosenFormat: AuditFormat {
    if let format { return format }
    return output.flatMap { try? AuditOutputPath(path: $0).namedFormat() } ?? .md
  }

  func run() async throws {
    if let output { try AuditOutputPath(path: output).checkWritable() }
    let full = try await AuditRunner(command: self).run()
    let report = hideUnmanaged ? full.hidingUnmanaged() : full
    let text = try chosenFormat.render(report, forTerminal: output == nil)
    if let output {
      do {
        try await BlockingIO.run { try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic) }
      } catch {
        throw CLIFailure("cannot write the report to \(output): \(error.localizedDescription)")
      }
      let s = report.summary.status
      let m = report.summary
      FileHandleOutput.standardError(
        "audit: \(m.managed) managed devices — \(s.compliant) compliant (\(m.managedPercent(s.compliant)) %), "
          + "\(s.drifted) drifted, \(s.unreachable) unreachable, \(s.missing) missing; \(s.unknown) unmanaged heard"
          + (m.firmwareUnknown == 0
            ? "" : "; firmware not compared for \(m.firmwareUnknown) (version not known: --connect reads it)")
          + "; report: \(output)")
    } else {
      // On standard output (a terminal, most likely), the Markdown and HTML reports show outside text (device
      // names, a server's words) with control characters escaped; JSON escapes them itself, and CSV escapes
      // its fields' own (it keeps RFC 4180's CRLF between rows), so both go out as rendered.
      let shown =
        chosenFormat == .md || chosenFormat == .html ? TerminalText.escaped(text, keepingLineBreaks: true) : text
      print(shown, terminator: "")
    }
    if detailedExitcode, report.needsAttention { throw ExitCode(2) }
  }
}

/// The report formats.
enum AuditFormat: String, ExpressibleByArgument, CaseIterable {
  case json, csv, md, html

  /// `forTerminal`: for standard output (CSV fields then escape their line breaks too: `AuditCSV`).
  func render(_ report: AuditReport, forTerminal: Bool = false) throws -> String {
    switch self {
    case .json: try AuditJSON.render(report)
    case .csv: AuditCSV.render(report, forTerminal: forTerminal)
    case .md: AuditMarkdown.render(report)
    case .html: AuditHTML.render(report)
    }
  }
}
