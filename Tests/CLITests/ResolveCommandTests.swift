import Audit
import Foundation
import InfoManager
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// `resolve` and `news` as an operator runs them: the built binary against the loopback Info Manager, the
/// server, key and cache configured through flags, the environment and the config file.
///
/// Serialized: Foundation's `Process` on Linux lets a child inherit the descriptors of another child started
/// at the same moment, among them the socket by which it notices that child's exit; a loopback server
/// started while another test's CLI run is under way would keep that run "alive" until the server ends, and
/// two such tests could wait on each other.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ResolveCommandTests {
  /// A run's end: exit status, standard output, standard error.
  struct Run {
    var status: Int32
    var output: String
    var errors: String
  }

  /// Runs the binary with `arguments` in an environment of its own (HOME, XDG folders under `home`).
  static func run(_ arguments: [String], home: String, environment extra: [String: String] = [:]) async throws -> Run {
    var environment = [
      "HOME": home, "XDG_CONFIG_HOME": home + "/config", "XDG_CACHE_HOME": home + "/cache",
      "XDG_STATE_HOME": home + "/state", "PATH": "/usr/bin:/bin",
    ]
    environment.merge(extra) { $1 }
    let (status, output, errors) = try await CLIProcess.run(arguments, environment: environment)
    return Run(status: status, output: output, errors: errors)
  }

  struct Row: Decodable {
    var id: String
    var state: String
    var address: String?
    var infoPoint: InfoPointSummary?
  }

  @Test func scanResolvesTheSimulatedBlukiiModulesAndFindsTheUnregisteredOne() async throws {
    let server = try await InfoManagerServer.start(arguments: ["--api-key", "cli-key-9"])
    defer { server.stop() }
    let home = try LocalTools.temporaryDirectory("resolve-cli")
    defer { try? FileManager.default.removeItem(atPath: home) }
    let keyFile = home + "/key"
    try "cli-key-9\n".write(toFile: keyFile, atomically: true, encoding: .utf8)
    let arguments = [
      "resolve", "--scan", "6", "--adapter", "sim", "--info-manager", server.root, "--info-manager-key-file", keyFile,
      "--json",
    ]
    let first = try await Self.run(arguments + ["--language", "en-gb,de-de"], home: home)
    #expect(first.status == 0, "\(first.errors)")
    let rows = try JSONDecoder().decode([Row].self, from: Data(first.output.utf8))
    // B10003 is below the SDK's −85 dBm threshold; B10004 is deployed but not registered.
    #expect(rows.map(\.id) == ["B10001", "B10002", "B10004"])
    #expect(rows.map(\.state) == ["RESOLVED", "RESOLVED", "NODATA"])
    #expect(rows[0].address == "E4:E1:12:B1:00:01" && rows[0].infoPoint?.language == "en-gb")
    // The key is never printed.
    #expect(!first.output.contains("cli-key-9") && !first.errors.contains("cli-key-9"))
    // A second batch within the cache timeout is served from the cache file (the server sees one request).
    let second = try await Self.run(
      ["resolve", "B10001", "B10002", "--info-manager", server.root, "--info-manager-key-file", keyFile, "--json"],
      home: home)
    #expect(try JSONDecoder().decode([Row].self, from: Data(second.output.utf8)).map(\.state) == ["CACHED", "CACHED"])
    #expect(try await server.log().count == 1)
    let cacheText = try String(contentsOfFile: home + "/cache/beacon-provision/info-manager.json", encoding: .utf8)
    #expect(cacheText.contains("Museum entrance") && !cacheText.contains("cli-key-9"))
  }

  /// Several runs at once each add their entries to the cache file (a save used to write the run's whole
  /// cache as loaded at its start: the last save won); a corrupt cache file is reported, then replaced.
  @Test func parallelRunsKeepEveryEntryAndACorruptCacheIsReported() async throws {
    let server = try await InfoManagerServer.start(arguments: ["--api-key", "par-key"])
    defer { server.stop() }
    let home = try LocalTools.temporaryDirectory("resolve-parallel")
    defer { try? FileManager.default.removeItem(atPath: home) }
    let cachePath = home + "/cache/beacon-provision/info-manager.json"
    try FileManager.default.createDirectory(atPath: home + "/cache/beacon-provision", withIntermediateDirectories: true)
    try "{ not json".write(toFile: cachePath, atomically: true, encoding: .utf8)
    let env = ["BEACON_PROVISION_INFO_MANAGER": server.root, "BEACON_PROVISION_INFO_MANAGER_KEY": "par-key"]
    // The server answers after 5 s: every run has read the cache file before any run saves.
    try await server.mode("slow")
    let runs = try await withThrowingTaskGroup(of: Run.self) { group in
      for id in ["B10001", "B10002", "B10003"] {
        group.addTask { try await Self.run(["resolve", id, "B10004", "--json"], home: home, environment: env) }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.map(\.errors))")
    #expect(runs.contains { $0.errors.contains("warning: \(cachePath):1:3: $: not valid JSON") })
    let cache = try JSONDecoder().decode(ResolveCache.self, from: Data(contentsOf: URL(fileURLWithPath: cachePath)))
    #expect(cache.entries.keys.map { String($0.suffix(6)) }.sorted() == ["B10001", "B10002", "B10003"])
  }

  /// An answer of another shape than ours (a content type we do not know, info points without blukiiId) is
  /// shown and warned about: it failed the whole command, or made every ID NODATA with no word.
  @Test func anAnswerOfANewShapeIsWarnedAboutNotFatalNorSilent() async throws {
    let server = try await InfoManagerServer.start()
    defer { server.stop() }
    let home = try LocalTools.temporaryDirectory("resolve-shapes")
    defer { try? FileManager.default.removeItem(atPath: home) }
    try await server.mode("newshapes")
    let batch = try await Self.run(
      ["resolve", "B10001", "B10002", "--info-manager", server.root, "--no-cache"], home: home)
    #expect(batch.status == 0, "\(batch.errors)")
    #expect(batch.errors.contains("warning: the answer holds 2 info points without a blukiiId"), "\(batch.errors)")
    #expect(batch.errors.contains("NODATA may be wrong for 2 ID(s)"))
    let single = try await Self.run(["resolve", "B10001", "--info-manager", server.root], home: home)
    #expect(
      single.status == 0 && single.output.contains("SURVEY") && single.output.contains("Tell us"), "\(single.output)")
    #expect(
      single.errors.contains("output info types this version does not know: SURVEY (shown as sent)"), "\(single.errors)"
    )
  }

  @Test func configurationComesFromTheEnvironmentOrTheConfigFileAndExitCodesTellTheOutcome() async throws {
    let server = try await InfoManagerServer.start(arguments: ["--api-key", "cfg-key"])
    defer { server.stop() }
    let home = try LocalTools.temporaryDirectory("resolve-config")
    defer { try? FileManager.default.removeItem(atPath: home) }
    // Nothing configured: an error that says where to configure it.
    let none = try await Self.run(["resolve", "B10001"], home: home)
    #expect(
      none.status == 1 && none.errors.contains("--info-manager")
        && none.errors.contains("BEACON_PROVISION_INFO_MANAGER"))
    // The environment: a single ID is RESOLVED without the cache.
    let env = ["BEACON_PROVISION_INFO_MANAGER": server.root, "BEACON_PROVISION_INFO_MANAGER_KEY": "cfg-key"]
    let single = try await Self.run(["resolve", "B10004"], home: home, environment: env)
    #expect(single.status == 0 && single.output.contains("NODATA"), "\(single.errors)")
    #expect(!FileManager.default.fileExists(atPath: home + "/cache/beacon-provision/info-manager.json"))
    // The config file, with a typo in a member name: refused with the file and the JSON path.
    try FileManager.default.createDirectory(
      atPath: home + "/config/beacon-provision", withIntermediateDirectories: true)
    let config = home + "/config/beacon-provision/config.json"
    try #"{"infoManager": {"url": "\#(server.root)", "apikey": "cfg-key"}}"#.write(
      toFile: config, atomically: true, encoding: .utf8)
    let typo = try await Self.run(["resolve", "B10001"], home: home)
    #expect(typo.status == 1 && typo.errors.contains("config.json:1:") && typo.errors.contains("$.infoManager.apikey"))
    #expect(typo.errors.contains("allowed: url, apiKey, user, password, cacheTimeout"))
    try #"{"infoManager": {"url": "\#(server.root)", "apiKey": "cfg-key"}}"#.write(
      toFile: config, atomically: true, encoding: .utf8)
    let news = try await Self.run(["news", "--language", "en-gb", "--json"], home: home)
    #expect(news.status == 0 && news.output.contains("special exhibition"), "\(news.errors)")
    // A priority list, as the help says: fr-fr has no news on this server, so en-gb's is printed.
    let fallback = try await Self.run(["news", "--language", "fr-fr,en-gb", "--json"], home: home)
    #expect(
      fallback.status == 0 && fallback.output.contains("special exhibition") && fallback.output.contains("en-gb"),
      "\(fallback.errors)")
    // One limit for the cache timeout: the flag refuses what the config file refuses (30 days).
    let long = try await Self.run(["resolve", "B10001", "--cache-timeout", "2600000"], home: home)
    #expect(long.status == 64 && long.errors.contains("at most 2592000"), "\(long.errors)")
    // The server unreachable: a batch is UNRESOLVED with exit 3, a single ID an error (exit 1).
    try await server.mode("unavailable")
    let batch = try await Self.run(["resolve", "B10001", "B10002", "--no-cache"], home: home)
    #expect(batch.status == 3 && batch.output.contains("UNRESOLVED"))
    let one = try await Self.run(["resolve", "B10001"], home: home)
    #expect(one.status == 1 && one.errors.contains("not reachable"))
    // Bad input is refused before any request.
    let bad = try await Self.run(["resolve", "B1", "--language", "english"], home: home)
    #expect(bad.status != 0 && bad.errors.contains("de-de"))
  }

  @Test func auditGainsAnInfoManagerColumnForBlukiiModulesWhenResolveIsConfigured() async throws {
    let server = try await InfoManagerServer.start()
    defer { server.stop() }
    let home = try LocalTools.temporaryDirectory("resolve-audit")
    defer { try? FileManager.default.removeItem(atPath: home) }
    let configured = try await Self.run(
      ["audit", "--adapter", "sim", "--scan", "3", "--format", "json", "--info-manager", server.root], home: home)
    #expect(configured.status == 0, "\(configured.errors)")
    let report = try AuditJSON.parse(configured.output)
    #expect(report.infoManager == server.root)
    let column = Dictionary(
      uniqueKeysWithValues: report.devices.compactMap { d in d.infoManager.map { (d.address, $0) } })
    // The audit has no RSSI threshold: every blukii module heard, B10003 (weak) included; nothing else.
    #expect(
      column["E4:E1:12:B1:00:01"]
        == AuditInfoManager(id: "B10001", registration: .registered, infoPoint: "Museum entrance"))
    #expect(column["E4:E1:12:B1:00:03"]?.registration == .registered)
    #expect(column["E4:E1:12:B1:00:04"] == AuditInfoManager(id: "B10004", registration: .notRegistered))
    #expect(column.count == 4)
    // One batch request for the four modules.
    #expect(try await server.log().count == 1)
    // The Markdown and CSV of the same report show the column; a report without an Info Manager has none (one
    // CLI run only: each run is a child process, see the suite's comment).
    let markdown = AuditMarkdown.render(report)
    #expect(markdown.contains("| Info Manager |") && markdown.contains("not registered (B10004)"))
    #expect(AuditCSV.render(report).contains(",registered (B10001)"))
    var plain = report
    plain.infoManager = nil
    for i in plain.devices.indices { plain.devices[i].infoManager = nil }
    #expect(!AuditMarkdown.render(plain).contains("Info Manager"))
    // The server unreachable (503) and nothing cached (another home): every module unknown, and a warning
    // says why (it said nothing, and "0 not registered" read as a clean result).
    try await server.mode("unavailable")
    let other = try LocalTools.temporaryDirectory("resolve-audit-down")
    defer { try? FileManager.default.removeItem(atPath: other) }
    let down = try await Self.run(
      ["audit", "--adapter", "sim", "--scan", "3", "--format", "json", "--info-manager", server.root], home: other)
    #expect(down.status == 0, "\(down.errors)")
    #expect(down.errors.contains("warning: the Info Manager \(server.root) could not be reached"), "\(down.errors)")
    #expect(down.errors.contains("4 of 4 blukii modules are marked unknown"))
    let unknown = try AuditJSON.parse(down.output).devices.compactMap(\.infoManager)
    #expect(unknown.count == 4 && unknown.allSatisfy { $0.registration == .unknown })
  }
}
