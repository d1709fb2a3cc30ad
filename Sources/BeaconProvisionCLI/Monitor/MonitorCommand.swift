import ArgumentParser
import BeaconCore
import CampaignPipeline
import Fleet
import Foundation
import Metrics
import Presence
import Profiles
import Simulator

/// `beacon-provision monitor` (presence monitoring): a continuous scan that keeps each device's smoothed RSSI and
/// proximity and fires events — enter, exit, proximity, tag sessions, health — on standard output, to
/// webhooks through the spool in the state directory (nothing lost across a `kill -9`), or to commands.
struct MonitorCommand: AsyncParsableCommand, LoggingCommand {
  static let configuration = CommandConfiguration(
    commandName: "monitor",
    abstract:
      "Watch the fleet: enter/exit, proximity, tag sessions and health events, to stdout, webhooks or commands.",
    discussion: """
      Without --events every device's enter, exit and proximity changes, every tag's session opening and closing \
      (tags from --inventory) and every health event (battery under 20 % or 2500 mV, silent 10 minutes, firmware \
      changed) are printed, one line each, or as JSON lines with --jsonl. --events FILE defines named events \
      (docs/guide/monitor.md, "The events file": targets, trigger, triggerOnce, minimum proximity, schedules, \
      actions). Webhook deliveries \
      are spooled in the state directory and retried until the receiver answers 2xx; each carries an \
      Idempotency-Key, and a restarted monitor sends what is left; a redirect is followed with the same POST, and \
      --cacert trusts a private CA for https webhooks. A webhook URL must have a host (and a port 1-65535 if \
      any), no spaces or control characters and no user or password: give credentials as headers with \
      --webhook-header-file. A failing webhook is warned about at its first failure and when it delivers again, \
      and the spool's depth every minute while events wait; 'monitor spool list|retry|drop' shows, sends or \
      removes spooled events. On Ctrl-C the spool delivers for up to --drain-timeout \
      seconds more; what is left stays spooled for the next start. The presence state (present devices, open \
      tag sessions, events fired, health reported) is kept in monitor-state.json in the state directory, so a \
      restart does not fire enter or session-open again, and a device that left meanwhile gets its exit. Devices heard are recorded in the fleet \
      registry. Ctrl-C stops.

      SIGHUP (systemd's reload) reads --inventory and --events again: present devices stay present and open \
      sessions open (no second enter or session-open), definitions keep what they fired by name; a file that \
      does not load is reported (file, JSON path) and the previous ones stay in force.

      --metrics HOST:PORT (e.g. 127.0.0.1:9464; port 0 takes a free port, printed on standard error) serves \
      HTTP/1.1 GET and HEAD: /metrics in Prometheus text format 0.0.4 (beacon_provision_devices_heard, \
      _devices_present, _tag_devices_present{tag}, _scan_reports_total, _scan_reports_per_second, \
      _webhook_spool_depth, _webhook_deliveries_failed_total{reason}, _events_fired_total{kind}); /healthz, \
      200 'ok' while the scan ran in the last 30 seconds and the journal answers, else 503 and the reasons; \
      /presence, who is here now as JSON (devices present, and per tag its session and present devices). \
      Anything else is 404; the server never holds the scan back. It has no authentication: bind it to \
      loopback or a trusted network.

      \(ExitStatus.paragraph("0 stopped by Ctrl-C; 1 an error"))
      """,
    subcommands: [MonitorSpoolCommand.self])

  @OptionGroup var adapterOptions: AdapterOptions

  @Option(
    help: ArgumentHelp(
      "An inventory (CSV or JSON): only its devices are watched; its tags group them. Its address column may name a beacon by identity, ibeacon:UUID:MAJOR:MINOR or eddystone:NAMESPACE:INSTANCE, to follow it across address changes.",
      valueName: "file"))
  var inventory: String?

  @Option(
    help: ArgumentHelp("The event definitions (JSON; docs/guide/monitor.md, \"The events file\").", valueName: "file"))
  var events: String?

  @Flag(help: "Print every event as a JSON line (the webhook body).")
  var jsonl = false

  @Option(help: ArgumentHelp("POST every event to this URL (repeatable), through the spool.", valueName: "url"))
  var webhook: [String] = []

  @Option(
    help: ArgumentHelp(
      "Headers sent with webhook POSTs, one 'Name: value' a line (e.g. 'Authorization: Bearer …'; kept out of the spool); a '[URL prefix]' line starts headers for those URLs only.",
      valueName: "file"))
  var webhookHeaderFile: String?

  @Option(help: ArgumentHelp("Stop after this many seconds (default: run until Ctrl-C).", valueName: "seconds"))
  var duration: Double?

  @Option(
    help: ArgumentHelp(
      "At the end, how long the spool may still deliver before it is left for the next start.", valueName: "seconds"))
  var drainTimeout: Double = 5

  @OptionGroup var tls: TLSOptions

  @Option(
    help: ArgumentHelp(
      "Serve /metrics (Prometheus), /healthz and /presence over HTTP on this address (port 0: any free port).",
      valueName: "host:port"))
  var metrics: String?

  @Flag(help: "Passive scanning: no scan requests, so no scan responses (names, KKM 0x2080 battery).")
  var passive = false

  @OptionGroup var scanBackend: ScanBackendOption

  @OptionGroup var stateOption: MonitorStateDirectory
  var stateDir: String? { stateOption.stateDir }

  @OptionGroup var journalLocation: JournalLocationOptions
  @OptionGroup var logging: LoggingOptions

  func validate() throws {
    try SecondsOption.validate(duration, "--duration")
    try SecondsOption.validate(drainTimeout, "--drain-timeout", zeroAllowed: true)
    if let metrics {
      do { _ = try MetricsEndpoint(metrics) } catch { throw ValidationError(error.description) }
    }
    for url in webhook {
      if let problem = WebhookURL.problem(url) { throw ValidationError("--webhook: \(problem)") }
    }
  }

  func run() async throws {
    try await run(pace: .realTime, write: ScanCommand.writeLine)
  }

  /// The command with the simulator's pace and standard output given (tests run it unpaced, in process).
  func run(pace: SimulationPace, write: @escaping @Sendable (String) -> Void) async throws {
    let command = self
    try RegistryAccess.checkShared(journalLocation)
    let file = try await BlockingIO.run { try command.loadEvents() }
    let inventory: Inventory? = try await BlockingIO.run {
      try command.inventory.map { try AuditRunner.loadInventory($0, identities: true) }
    }
    if let inventory, let path = command.inventory {
      do { try MonitorInventoryColumns.validate(inventory, file: path) } catch { throw CLIFailure(error.description) }
    }
    let state = StateDirectory.resolve(stateDir)
    let central = try await CentralFactory.make(
      adapterOptions.adapter, scanBackend: scanBackend.value, pace: pace, stateDirectory: state)
    let journal = try await BlockingIO.run { try Journal(path: CampaignResources.journalPath(state)) }
    // The spool stays in this gateway's own journal; the registry is the shared one when `--journal` names it.
    let registry = await RegistryAccess.shared(journalLocation) ?? RegistryAccess.recorder(journal)
    let log = CLILog.logger("monitor")
    let warn: @Sendable (String) -> Void = { log.warning("\($0)") }
    let headers = try command.webhookHeaderFile.map { try WebhookHeaderFile.load($0) } ?? WebhookHeaders()
    let poster = CurlWebhookPoster(
      caFile: tls.caFile, insecureSkipTLSVerify: tls.insecureSkipTLSVerify, extraHeaders: headers)
    let monitorMetrics = metrics.map { _ in MonitorMetrics() }
    let dispatch = WebhookDispatch(
      spool: WebhookSpool(journal: journal), poster: poster, warn: warn,
      failed: monitorMetrics.map { metrics -> @Sendable (String, Int) -> Void in
        { reason, count in metrics.webhookFailed(reason, count: count) }
      })
    let fileURLs = file.definitions.flatMap { $0.actions }.compactMap { action -> String? in
      if case .webhook(let url) = action { return url }
      return nil
    }
    await dispatch.start(urls: webhook + fileURLs)
    let actions = MonitorActions(jsonl: jsonl, runID: Self.runID(), webhooks: dispatch, write: write, warn: warn)
    var runner = MonitorRunner(file: file, inventory: inventory, active: !passive)
    runner.duration = duration.map(SecondsOption.duration)
    let stateFile = MonitorStateFile(stateDirectory: state)
    runner.restored = try await BlockingIO.run { stateFile.load(warn: warn) }
    if inventory != nil {
      do {
        runner.lastSeen = LastSeen.index(
          try await registry.registry.devices().map { ($0.address, $0.identities ?? [], $0.lastSeen) })
      } catch {
        warn(
          "cannot read the fleet registry's last-seen times: \(error); inventory devices not heard yet count their silence from now"
        )
      }
    }
    runner.keep = { kept in
      do { try await BlockingIO.run { try stateFile.save(kept) } } catch {
        warn("cannot keep the presence state in \(stateFile.path): \(error)")
      }
    }
    let hangup = HangupSignal()
    defer { hangup.stop() }
    runner.reloads = hangup.signals
    runner.reload = { await command.reloadFiles() }
    runner.metrics = monitorMetrics
    let server = try monitorMetrics.map {
      try command.serve($0, spool: WebhookSpool(journal: journal), registry: registry)
    }
    defer {
      server?.server.stop()
      server?.probe.cancel()
    }
    log.info("monitoring", metadata: ["adapter": "\(central.name)", "events": "\(file.definitions.count)"])
    do {
      let fired = try await SignalCancellation.run { [runner] in
        try await runner.run(central: central, actions: actions, registry: registry)
      }
      log.info("stopped", metadata: ["events": "\(fired)"])
    } catch {
      await central.stopScans()
      throw liveFailure(error)
    }
    await central.stopScans()
    let left = await dispatch.finish(grace: SecondsOption.duration(drainTimeout))
    if left > 0 {
      FileHandleOutput.standardError(
        "monitor: \(left) webhook event\(left == 1 ? "" : "s") stay spooled for the next start")
    }
  }

  /// The events file (with `--webhook`/`--jsonl` added to each event), or the standard definitions.
  func loadEvents() throws -> EventFile {
    let extra = webhook.map { EventAction.webhook(url: $0) }
    guard let events else { return EventFile.standard(actions: extra) }
    let data = try InputFile.read(events, limit: .events)
    do {
      return try EventFileDecoder.decode(Array(data), file: events, extraActions: extra)
    } catch {
      let n = error.all.count
      throw CLIFailure(
        error.all.map(\.description).joined(separator: "\n") + "\n\(n) error\(n == 1 ? "" : "s") in the events file")
    }
  }

  /// `20260302T080005-1a2b`: the time the run started and a random suffix.
  static func runID() -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyyMMdd'T'HHmmss"
    return formatter.string(from: Date()) + "-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
  }
}
