import ArgumentParser
import BeaconCore
import Foundation
import InfoManager
import InfoManagerIO

/// `beacon-provision resolve`: what the blukii Info Manager serves for blukii IDs, NFC tags or barcodes —
/// the SDK's resolve (docs/protocols/info-manager.md) with its states UNRESOLVED, RESOLVED, NODATA and CACHED.
///
/// One ID is the SDK's single-element resolve: no cache, RESOLVED or NODATA, an unreachable server is an
/// error. Several IDs, or `--scan`, are a batch: one request for every ID not served fresh from the cache;
/// a server that cannot be reached gives UNRESOLVED (exit 3) for IDs without a fresh cache entry.
struct ResolveCommand: AsyncParsableCommand, LoggingCommand {
  static let configuration = CommandConfiguration(
    commandName: "resolve",
    abstract: "Ask the blukii Info Manager what each ID (or each blukii module heard) serves.",
    discussion: """
      Give IDs (blukii numbers such as B10001, NFC tag IDs, barcodes), or --scan S to listen S seconds for blukii \
      modules the way the blukii SDK does (5 s windows every 20 s, RSSI threshold -85 dBm) and resolve the ones \
      heard. Each result has a state: RESOLVED (the Info Manager has an info point for it), NODATA (reachable, \
      but the ID is not registered: a deployed module missing from the Info Manager), CACHED (an earlier answer, \
      younger than --cache-timeout), UNRESOLVED (the server could not be reached). Content is shown in the first \
      language of --language that has any.

      The server has no default: configure it with --info-manager (or $BEACON_PROVISION_INFO_MANAGER, or \
      "infoManager" in ~/.config/beacon-provision/config.json), with the API key and credentials the same ways \
      (see the README). Exit status: 0 when every ID got an answer (cached included), 3 when some are \
      UNRESOLVED, 1 on an error (a refused request, a malformed answer, bad configuration); \(ExitStatus.usage).

      Example:
        beacon-provision resolve --scan 25 --adapter sim \\
            --info-manager http://127.0.0.1:8080
      """)

  @Argument(help: ArgumentHelp("IDs to resolve.", valueName: "id"))
  var ids: [String] = []

  @Option(
    name: .customLong("scan"),
    help: ArgumentHelp("Listen this many seconds for blukii modules and resolve the ones heard.", valueName: "s"))
  var scanSeconds: Double?

  @Option(help: ArgumentHelp("Where the IDs come from: blukii, nfc or barcode (--scan: blukii).", valueName: "source"))
  var source: InputSource = .blukii

  @Option(
    name: .customLong("language"),
    help: ArgumentHelp(
      "Language priority, first with content wins (default de-de,fr-fr,en-gb, the SDK's).", valueName: "codes"))
  var language: String?

  @Option(
    name: .customLong("rssi-threshold"), parsing: .unconditional,
    help: ArgumentHelp(
      "--scan: drop modules weaker than this, dBm (-120…-20, default -85).", valueName: "dBm"))
  var rssiThreshold: Int = -85

  @Option(
    name: .customLong("cache-timeout"),
    help: ArgumentHelp(
      "Seconds an answer is served from the cache (default 180, the SDK's 180000 ms; or the config's cacheTimeout).",
      valueName: "s"))
  var cacheTimeout: Double?

  @Flag(name: .customLong("no-cache"), help: "Neither read nor write the resolve cache.")
  var noCache = false

  @OptionGroup(title: "Info Manager") var infoManager: InfoManagerOptions

  @OptionGroup var adapterOptions: AdapterOptions
  @OptionGroup var scanBackend: ScanBackendOption

  @Option(
    help: "Where the fleet registry (and the simulated fleet's state) live. Default: $XDG_STATE_HOME/beacon-provision.")
  var stateDir: String?

  @OptionGroup var logging: LoggingOptions

  @Flag(help: "Print the results as a JSON array.")
  var json = false

  func validate() throws {
    if ids.isEmpty && scanSeconds == nil {
      throw ValidationError("give IDs to resolve, or --scan SECONDS to resolve the blukii modules heard")
    }
    try SecondsOption.validate(scanSeconds, "--scan")
    try SecondsOption.validate(cacheTimeout, "--cache-timeout", atMost: ResolveCache.longestTimeout)
    if scanSeconds != nil && source != .blukii {
      throw ValidationError("--scan hears blukii modules: --source must be blukii")
    }
    guard BlukiiDiscovery.rssiRange.contains(rssiThreshold) else {
      throw ValidationError("--rssi-threshold must be from -120 to -20 dBm (got \(rssiThreshold))")
    }
    if let language { _ = try Self.languages(language) }
    if ids.contains(where: { $0.isEmpty }) { throw ValidationError("an ID may not be empty") }
  }

  static func languages(_ text: String?) throws -> LanguagePriority {
    guard let text else { return .sdkDefault }
    do { return try LanguagePriority(parsing: text) } catch { throw ValidationError("--language: \(error)") }
  }

  func run() async throws {
    guard let configuration = try await infoManager.resolvedConfiguration() else {
      throw CLIFailure(
        "no Info Manager configured: give --info-manager URL, set \(InfoManagerOptions.urlVariable), or put "
          + "{\"infoManager\": {\"url\": \"https://…\"}} in \(FirmwareSourceOptions.configFile())")
    }
    var heard: [BlukiiModule] = []
    if let scanSeconds { heard = try await scanModules(seconds: scanSeconds) }
    let all = ids + heard.map(\.id)
    let single = scanSeconds == nil && Set(ids).count == 1
    let resolution = BatchResolution(
      source: source, languages: try Self.languages(language), single: single, cacheEnabled: !noCache,
      cacheTimeout: cacheTimeout ?? configuration.cacheTimeout ?? ResolveCache.defaultTimeout)
    let results = try await Self.resolve(all, resolution: resolution, configuration: configuration)
    let rows = results.map { result in ResolveRow(result: result, module: heard.first { $0.id == result.id }) }
    if json {
      print(try JSONOutput.string(rows))
    } else if rows.isEmpty {
      print("no blukii modules heard")
    } else {
      for line in ResolveText.lines(rows) { print(line) }
    }
    if results.contains(where: { $0.state == .unresolved }) { throw ExitCode(3) }
  }

  /// Resolves `ids` with the cache file when the resolution uses it (read and written off the pool).
  static func resolve(_ ids: [String], resolution: BatchResolution, configuration: InfoManagerConfiguration)
    async throws -> [ResolveResult]
  {
    guard !ids.isEmpty else { return [] }
    let file = InfoManagerConfiguration.cacheFile()
    let loaded =
      resolution.usesCache
      ? try await BlockingIO.run { file.load(warn: { FileHandleOutput.standardError("warning: \($0)") }) }
      : ResolveCache()
    var cache = loaded
    let results: [ResolveResult]
    do {
      results = try await configuration.client.resolve(
        ids, with: resolution, cache: &cache, now: { Date().timeIntervalSince1970 })
    } catch let failure as InfoManagerFailure {
      throw CLIFailure(failure.description)
    }
    for warning in answerWarnings(results) { FileHandleOutput.standardError("warning: \(warning)") }
    if resolution.usesCache {
      let snapshot = cache
      do {
        try await BlockingIO.run { try file.save(snapshot, since: loaded) }
      } catch {
        FileHandleOutput.standardError(
          "warning: the resolve cache \(file.path) was not written: \(error.localizedDescription)")
      }
    }
    return results
  }

  /// What in an answer differs from the shape we know, once each: info points that could not be matched to
  /// the IDs asked (their NODATA may be wrong), output info types this version does not know (shown as sent).
  static func answerWarnings(_ results: [ResolveResult]) -> [String] {
    var warnings: [String] = []
    if let reason = results.first(where: { $0.state == .noData && $0.reason != nil })?.reason {
      warnings.append("\(reason): NODATA may be wrong for \(results.filter { $0.state == .noData }.count) ID(s)")
    }
    let unknown = Set(results.compactMap(\.infoPoint).flatMap(\.outputInfos).map(\.type).filter { !$0.isKnown })
    if !unknown.isEmpty {
      warnings.append(
        "the Info Manager sent output info types this version does not know: "
          + "\(unknown.map(\.rawValue).sorted().joined(separator: ", ")) (shown as sent)")
    }
    return warnings
  }

  /// Listens like the blukii SDK (`BlukiiDiscovery`) and returns the modules heard, one per ID.
  private func scanModules(seconds: Double) async throws -> [BlukiiModule] {
    let central = try await CentralFactory.make(
      adapterOptions.adapter, scanBackend: scanBackend.value, stateDirectory: stateDir)
    var discovery = BlukiiDiscovery.sdkDefault
    discovery.rssiThreshold = Int8(rssiThreshold)
    let runner = ScanRunner(
      settings: discovery.sessionSettings, duration: SecondsOption.duration(seconds), active: true, mode: .json)
    do {
      let session = try await SignalCancellation.run { try await runner.scan(central: central) { _ in } }
      await central.stopScans()
      return BlukiiDiscovery.modules(in: session.results)
    } catch {
      await central.stopScans()
      throw liveFailure(error)
    }
  }
}

extension InputSource: ExpressibleByArgument {}

/// One line of `resolve` output: the result, and the module heard when it came from `--scan`.
struct ResolveRow: Encodable {
  var result: ResolveResult
  var module: BlukiiModule?

  func encode(to encoder: any Encoder) throws {
    try result.encode(to: encoder)
    guard let module else { return }
    var c = encoder.container(keyedBy: Keys.self)
    try c.encode(module.address.description, forKey: .address)
    try c.encode(module.name, forKey: .deviceName)
    try c.encodeIfPresent(module.rssi, forKey: .rssi)
  }

  enum Keys: String, CodingKey { case address, deviceName, rssi }
}

/// The text rendering of `resolve`: one line per ID, then its content lines indented. What the server sent
/// (names, descriptions, titles, URLs) is shown with its control characters escaped (`TerminalText`).
enum ResolveText {
  static func lines(_ rows: [ResolveRow]) -> [String] {
    var lines: [String] = []
    for row in rows {
      let r = row.result
      var head = "\(r.id.padded(14)) \(r.state.rawValue.padded(10))"
      if let module = row.module { head += " \(module.address)" + (module.rssi.map { " \($0) dBm" } ?? "") }
      if let point = r.infoPoint {
        head += "  \(point.name ?? "(no name)")"
        if point.deactivated || point.deactivatedByAdmin {
          head += point.deactivatedByAdmin ? " [deactivated by admin]" : " [deactivated]"
        }
      }
      if let reason = r.reason, !reason.isEmpty { head += "  (\(reason))" }
      lines.append(head)
      guard let point = r.infoPoint else { continue }
      if let description = point.description { lines.append("    \(description)") }
      if let text = point.notificationText { lines.append("    notification: \(text)") }
      for info in point.outputInfos {
        let target = info.url ?? info.audioFileUrl ?? info.textToSpeech ?? ""
        lines.append("    \(info.type.rawValue.padded(8)) \(point.language ?? "")  \(info.title ?? "")  \(target)")
      }
      if point.outputInfos.isEmpty { lines.append("    (no content in the languages asked for)") }
    }
    return lines.map(\.terminalSafe)
  }
}
