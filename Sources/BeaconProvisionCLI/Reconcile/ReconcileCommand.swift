import ArgumentParser
import BeaconCore
import CampaignPipeline
import Firmware
import Fleet
import Foundation
import Metrics

/// `beacon-provision reconcile PROFILE…`: keep the fleet converged. The loop is
/// `ReconcileLoop`; the schedule, `ReconcileLedger`.
struct ReconcileCommand: AsyncParsableCommand, LoggingCommand {
  static let configuration = CommandConfiguration(
    commandName: "reconcile",
    abstract: "Keep the fleet converged: scan continuously, apply a profile to each device that is due, then leave it.",
    discussion: """
      Runs until stopped. Scans in windows of --window seconds; after each window, every device a profile \
      selects that is due is planned and, where it differs, applied and verified through the same path as apply \
      (only the changed keys are written; a compliant device gets no write). A device is due when it was never \
      verified against the profile's current content (the SHA-256 of the profile and its inventory), when its \
      advertisement shows drift (as audit does: name, frames, identifiers, connectable, interval), or when its \
      last connected check is older than --recheck. After that it is left alone until it is due again. A device \
      that fails backs off (30 s, doubling, at most 1 h) and is reported; a wrong password is never retried \
      while the profile is unchanged; a device whose link reached a neighbour's DFU bootloader (left at its \
      address by that neighbour's failed update) is not counted as failing and is tried again after \
      --bootloader-timeout (shadowed). The schedule is kept in reconcile.json in the state directory, every visit \
      in the journal (as apply runs); a device not heard for --forget-after (30d) leaves it (forgotten), so devices \
      that left the site stop counting towards a rollout of this gateway's own schedule.

      One line per action on standard error; with --jsonl one JSON object per event on standard output \
      ("event": converged, drift-seen, write-failed, backoff, shadowed, skipped-battery, skipped-budget, skipped-quiet, \
      wrong-password, forgotten; with a \
      shared journal also converged-elsewhere, failed-elsewhere, reopened). \
      SIGTERM or Ctrl-C stop cleanly: links in flight finish their device, the rest of the pass is journalled as \
      interrupted, and the next start finishes the job; a second signal abandons links in flight (status 130). \
      SIGHUP reloads the profiles; a profile that no longer loads is reported (file and JSON path) and the old \
      one kept. With several profiles, a device belongs to the first that selects it.

      --webhook URL POSTs every event's JSON object (the --jsonl line) to URL through the spool of the state \
      directory's journal, as monitor does: spooled before its line is printed, retried with backoff, in order \
      per device, with an Idempotency-Key; what is left at a stop waits there for the next start (monitor spool \
      lists it).

      --quiet-hours 22:00-06:00 keeps every link closed during that daily span of the gateway's local time (it may \
      wrap midnight): the windows go on, due devices are reported once (skipped-quiet) and visited after it.

      --firmware latest (or a version like V5.14) also keeps each device on the catalogue's firmware (--catalog, \
      see 'firmware --help'): after a profile's devices are visited, each converged device whose firmware was \
      never checked under this catalogue and version, or not for --recheck, goes through the same campaign as \
      dfu update --firmware (the packages fetched and verified before any device enters its bootloader; ver \
      read back from the updated device). Events firmware-updated, firmware-current, firmware-failed (with a \
      backoff, as a failed visit), firmware-error (the catalogue or a package could not be had: firmware waits, \
      backing off), firmware-shadowed (the device's link reached its neighbour's bootloader, left by a failed \
      update: it waits --bootloader-timeout, and that neighbour waits for its turn), firmware-in-bootloader (a \
      device whose update failed is heard only as its bootloader for --bootloader-timeout: reported once, with \
      the dfu update --resume command that finishes it), skipped-maintenance. A device its failed update left \
      in its bootloader is finished once its backoff has run, without --rollout: the run that left it is resumed \
      for it (with --journal, its row is reopened and the run's takeover finishes it). \
      --maintenance-window 01:00-05:00 installs firmware only \
      inside that daily span (a transfer under way when it closes finishes; no other starts); --min-battery (default 30 for firmware) holds back devices under it. \
      --rollout canary=N,waves=P%,…,100% stages the firmware over the site, as dfu update --rollout does: the \
      canary's devices first, then each wave's cumulative share of the rest, a stage starting only once the one \
      before ended (every member updated, current or failed) at or under --max-failures (default 0%); the others \
      wait (skipped-rollout; rollout-stage as a stage ends). Over the threshold the rollout stops (rollout-stopped) \
      and no device is connected to for that firmware, across restarts, until a start with --resume-rollout \
      (which also moves past a stage that cannot end); the stop carries over to a new rollout of the same \
      firmware after an edit of the profile or for another profile. Kept per profile and firmware in \
      reconcile.json, or with a shared journal in the journal, one rollout for the whole site that every gateway \
      admits into (there --resume-rollout resumes every stopped rollout of the firmware, once); pin the version \
      (--firmware V5.14) to stage each release.

      Several gateways: with --journal postgresql://… every gateway reconciling the site visits its due devices \
      through one shared run per profile and --recheck period (reconcile-<content>-<period>), with the leases and \
      the nearest-gateway rule of apply --journal: a device is connected by one gateway, a device another gateway \
      settled is not visited again (converged-elsewhere, failed-elsewhere), and a settled device is reopened only \
      for drift seen since, or a retry after backoff (reopened). A gateway killed mid-visit loses its leases after \
      --lease seconds; another takes its devices over from what the journal says. Each gateway keeps its own \
      schedule (reconcile.json); --gateways/--settle wait for the others on the first pass only. With --firmware \
      the firmware checks go through a shared run of their own per profile, catalogue and period \
      (reconcile-firmware-<content>-<period>): each device is updated by one gateway, and the others learn it \
      (firmware-elsewhere, firmware-shadowed-elsewhere, firmware-failed-elsewhere).

      --metrics HOST:PORT (e.g. 127.0.0.1:9464; port 0 takes a free port, printed on standard error) serves \
      HTTP/1.1 GET and HEAD: /metrics in Prometheus text format 0.0.4 (devices heard, managed, compliant, \
      pending, drifted, failing; links in use; writes, checks, failures and skips by reason; scan windows) and \
      /healthz (200 "ok"; 503 with the reasons when no window or visit ended for three windows, at least 2 \
      minutes, or the journal does not answer).

      \(ExitStatus.paragraph("0 stopped by a signal, or with --once the pass ended with no device failed; 1 an error, or with --once a device failed; 130 a second signal"))

      Examples:
        BEACON_PASSWORD=0000000000000000 beacon-provision reconcile \\
            profiles/retail-ibeacon.json --adapter sim --once
        beacon-provision reconcile site.json --adapter hci0 --recheck 1d \\
            --parallel 3 --jsonl --metrics 127.0.0.1:9464
        beacon-provision reconcile site.json --adapter hci0 \\
            --journal postgresql://bp@db/site --gateway hall-east
        beacon-provision reconcile site.json --adapter hci0 --firmware latest \\
            --catalog https://fw.example/ --maintenance-window 01:00-05:00
      """)

  @Argument(help: "The profiles (JSON); a device belongs to the first that selects it.")
  var profiles: [String]

  @OptionGroup var adapterOptions: AdapterOptions

  @OptionGroup var scanBackend: ScanBackendOption

  @Option(help: ArgumentHelp("Seconds of each scan window; due devices are visited after each.", valueName: "seconds"))
  var window: Double = 10

  @Option(
    help: ArgumentHelp(
      "Check a verified device by connecting again after this long (s, m, h or d suffix; default 1d).",
      valueName: "duration"))
  var recheck: String = "1d"

  @Option(
    help: ArgumentHelp(
      "Drop a device from the schedule once it has not been heard for this long (s, m, h or d suffix, or never).",
      valueName: "duration"))
  var forgetAfter: String = "30d"

  @Option(help: "Links at once on the adapter (controllers hold 3–7 connections).")
  var parallel: Int = 2

  @Option(help: ArgumentHelp("At most this many device connections per hour (default: no limit).", valueName: "n"))
  var maxConnectionsPerHour: Int?

  @Option(
    help: ArgumentHelp(
      "Leave alone a device that advertises a battery under this percentage (skipped-battery).", valueName: "percent"))
  var minBattery: Int?

  @Option(
    help: ArgumentHelp(
      "Connect to no device during this daily span of the gateway's local time (scans go on), e.g. 22:00-06:00.",
      valueName: "HH:MM-HH:MM"))
  var quietHours: String?

  @Option(
    help: ArgumentHelp(
      "POST every event (its JSON line) to this URL through the spool in the state directory; repeatable.",
      valueName: "url"))
  var webhook: [String] = []

  @Option(
    help: ArgumentHelp(
      "Headers sent with webhook POSTs, one 'Name: value' a line (as monitor's --webhook-header-file).",
      valueName: "file"))
  var webhookHeaderFile: String?

  @Option(
    help: ArgumentHelp(
      "Keep each converged device on this firmware from the catalogue (--catalog): latest, or a version like V5.14.",
      valueName: "latest|version"))
  var firmware: String?

  @Option(
    help: ArgumentHelp(
      "Install firmware only during this daily span of the gateway's local time, e.g. 01:00-05:00.",
      valueName: "HH:MM-HH:MM"))
  var maintenanceWindow: String?

  @Option(
    help: ArgumentHelp(
      "How long a Secure DFU bootloader left by a failed update keeps answering at its "
        + "address + 1 (its inactivity timeout; Nordic's SDK: 120 s). The device it hides is tried again after "
        + "this (for its configuration and its firmware), the failed one only after that device's turn.",
      valueName: "seconds"))
  var bootloaderTimeout: Double = ReconcileFirmware.defaultBootloaderTimeout

  @OptionGroup(title: "Staged firmware (with --firmware)") var staging: ReconcileRolloutOptions

  @OptionGroup(title: "Firmware (with --firmware) and HTTP") var firmwareSource: FirmwareSourceOptions

  @OptionGroup(title: "The firmware packages' checks (with --firmware)") var deviceFacts: DFUDeviceOptions

  @Flag(help: "Print every event as a JSON line on standard output.")
  var jsonl = false

  @Flag(help: "One pass over what the first window hears, then exit (tests, cron).")
  var once = false

  @Option(
    help: ArgumentHelp(
      "Serve /metrics (Prometheus) and /healthz over HTTP on this address (port 0: any free port).",
      valueName: "host:port"))
  var metrics: String?

  @Option(help: .hidden) var backoffBase: Double = ReconcileLedger.backoffBase

  @Option(help: "Where the journal, the schedule (and the simulated fleet's state) live.")
  var stateDir: String?

  @OptionGroup(title: "Several gateways (a shared journal)") var shared: SharedJournalOptions

  @OptionGroup var logging: LoggingOptions

  func validate() throws {
    guard !profiles.isEmpty else { throw ValidationError("give at least one profile") }
    if shared.run != nil {
      throw ValidationError(
        "--run: reconcile names its shared runs itself (reconcile-<profile content>-<recheck period>); leave it out")
    }
    guard (1...16).contains(parallel) else { throw ValidationError("--parallel must be 1…16") }
    try SecondsOption.validate(window, "--window", atMost: 600)
    guard recheckSeconds != nil else {
      throw ValidationError("--recheck: '\(recheck)' is not a duration: a number with s, m, h or d (e.g. 12h, 1d)")
    }
    guard forgetAfter == "never" || DurationText.seconds(forgetAfter) != nil else {
      throw ValidationError(
        "--forget-after: '\(forgetAfter)' is not a duration: a number with s, m, h or d (e.g. 30d), or never")
    }
    if let n = maxConnectionsPerHour, n < 1 { throw ValidationError("--max-connections-per-hour must be at least 1") }
    if let p = minBattery, !(0...100).contains(p) { throw ValidationError("--min-battery must be 0…100") }
    if let metrics {
      do { _ = try MetricsEndpoint(metrics) } catch { throw ValidationError(error.description) }
    }
    for url in webhook {
      if let problem = WebhookURL.problem(url) { throw ValidationError("--webhook: \(problem)") }
    }
    if let quietHours {
      do { _ = try DailySpan(quietHours) } catch { throw ValidationError("--quiet-hours: \(error.description)") }
    }
    if let firmware, FirmwareWanted(firmware) == nil {
      throw ValidationError("--firmware \(firmware) is not latest or a version like V5.14")
    }
    if let maintenanceWindow {
      guard firmware != nil else { throw ValidationError("--maintenance-window is for --firmware") }
      do { _ = try DailySpan(maintenanceWindow) } catch {
        throw ValidationError("--maintenance-window: \(error.description)")
      }
    }
    _ = try staging.plan(firmware: firmware)
    guard bootloaderTimeout > 0, bootloaderTimeout <= 3600 else {
      throw ValidationError("--bootloader-timeout \(bootloaderTimeout) is not between 0 and 3600 seconds")
    }
  }

  /// `--recheck` in seconds (`DurationText`).
  var recheckSeconds: Double? { DurationText.seconds(recheck) }

  func run() async throws {
    var output = ReconcileOutput(jsonl: jsonl)
    let dispatch = try await webhooks()
    if let dispatch { output.webhooks = (dispatch, webhook) }
    let loop = ReconcileLoop(
      settings: ReconcileLoop.Settings(
        profiles: profiles, adapter: adapterOptions.adapter, scanBackend: scanBackend.value,
        stateDirectory: StateDirectory.resolve(stateDir), window: window, recheck: recheckSeconds ?? 86400,
        parallel: parallel, maxConnectionsPerHour: maxConnectionsPerHour, minBattery: minBattery, once: once,
        backoffBase: backoffBase, metrics: metrics, shared: shared,
        quietHours: try quietHours.map { text in try DailySpan(text) }, firmware: try firmwareSettings(),
        bootloaderTimeout: bootloaderTimeout, forgetAfter: DurationText.seconds(forgetAfter)),
      output: output)
    let failed: Bool
    do { failed = try await loop.run() } catch {
      await drain(dispatch)
      throw error
    }
    await drain(dispatch)
    if once, failed { throw ExitCode(1) }
  }

  /// `--firmware`: the catalogue's place, the cache and the package checks; nil without it.
  func firmwareSettings() throws -> ReconcileFirmware? {
    guard let firmware, let wanted = FirmwareWanted(firmware) else { return nil }
    let expectations = try deviceFacts.expectations(defaultHardwareVersion: 52)
    let location = try firmwareSource.location()
    return ReconcileFirmware(
      firmware: firmware, wanted: wanted, location: location,
      cache: try firmwareSource.cache(location: location, expectations: expectations),
      offline: firmwareSource.offline, expectations: expectations,
      maintenance: try maintenanceWindow.map { text in try DailySpan(text) }, bootloaderTimeout: bootloaderTimeout,
      rollout: try staging.plan(firmware: firmware), resumeRollout: staging.resumeRollout,
      finishArguments: ["dfu", "update"] + firmwareSource.resumeArguments(firmware: firmware)
        + adapterOptions.finishTail(stateDir: stateDir))
  }
}
