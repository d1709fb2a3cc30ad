import ArgumentParser
import BeaconCore
import Foundation
import HTTP
import InfoManager
import InfoManagerIO
import KBeacon

/// Where the blukii Info Manager is and how to talk to it (docs/protocols/info-manager.md: no host name is public, so the
/// server, its API key and credentials are configuration and have **no defaults**). Shared by `resolve`,
/// `news` and `audit`. Each setting, first found wins: the flag, the environment variable, then the
/// `"infoManager"` object of `~/.config/beacon-provision/config.json` (the firmware catalogue's config file):
///
/// | setting | flag | environment | config key |
/// |---|---|---|---|
/// | server root URL | `--info-manager URL` | `BEACON_PROVISION_INFO_MANAGER` | `url` |
/// | API key | `--info-manager-key-file FILE` | `BEACON_PROVISION_INFO_MANAGER_KEY` | `apiKey` |
/// | user | `--info-manager-user NAME` | `BEACON_PROVISION_INFO_MANAGER_USER` | `user` |
/// | password | `--info-manager-password-file FILE` | `BEACON_PROVISION_INFO_MANAGER_PASSWORD` | `password` |
/// | cache timeout (s) | `--cache-timeout S` | — | `cacheTimeout` |
///
/// The key and password are never on the command line (only files), and never printed: URLs in messages
/// have `key=` removed (`RedactedURL`), `InfoManagerCredentials` prints `user:***`.
struct InfoManagerOptions: ParsableArguments {
  @Option(
    name: .customLong("info-manager"),
    help: ArgumentHelp(
      "The Info Manager's root URL (requests go to <URL>/_ah/api/…). Default: $BEACON_PROVISION_INFO_MANAGER, else "
        + "\"infoManager\": {\"url\": …} in ~/.config/beacon-provision/config.json. There is no built-in server.",
      valueName: "url"))
  var url: String?

  @Option(
    name: .customLong("info-manager-key-file"),
    help: ArgumentHelp(
      "Read the API key from the first line of FILE (else $BEACON_PROVISION_INFO_MANAGER_KEY, else the config's apiKey).",
      valueName: "file"))
  var keyFile: String?

  @Option(
    name: .customLong("info-manager-user"),
    help: ArgumentHelp(
      "Log in as this user (else $BEACON_PROVISION_INFO_MANAGER_USER, else the config's user); none: no login.",
      valueName: "name"))
  var user: String?

  @Option(
    name: .customLong("info-manager-password-file"),
    help: ArgumentHelp(
      "Read the user's password from the first line of FILE (else $BEACON_PROVISION_INFO_MANAGER_PASSWORD, else the config's password).",
      valueName: "file"))
  var passwordFile: String?

  @Option(
    name: .customLong("info-manager-timeout"),
    help: ArgumentHelp(
      "Seconds one call to the Info Manager may take, retries included; past it the server counts as unreachable.",
      valueName: "s"))
  var timeout: Double = 20

  @Option(
    name: .customLong("cacert"),
    help: ArgumentHelp("A PEM file of CA certificates to trust instead of the system's.", valueName: "file"))
  var caFile: String?

  static let urlVariable = "BEACON_PROVISION_INFO_MANAGER"
  static let keyVariable = "BEACON_PROVISION_INFO_MANAGER_KEY"
  static let userVariable = "BEACON_PROVISION_INFO_MANAGER_USER"
  static let passwordVariable = "BEACON_PROVISION_INFO_MANAGER_PASSWORD"

  func validate() throws {
    try SecondsOption.validate(timeout, "--info-manager-timeout")
  }

  /// How `resolve`, `news` and `audit` spell the options an HTTP error's hint may name.
  static let httpOptionNames = HTTPOptionNames(
    baseURL: "--info-manager", maxTime: "--info-manager-timeout", connectTimeout: "--info-manager-timeout",
    caFile: "--cacert")

  /// The largest answer accepted [I]: 4 MiB. An info point is a few kilobytes of text and links (its media
  /// are URLs); a 50 MB answer was accepted, cached and printed (530 MB at the peak).
  static let largestAnswer: Int64 = 4 << 20

  /// The configuration these options, the environment and the config file give; nil when no server is
  /// configured anywhere (resolve is then off).
  func configuration(environment: [String: String] = ProcessInfo.processInfo.environment) throws
    -> InfoManagerConfiguration?
  {
    let file = try InfoManagerConfigFile.read(path: FirmwareSourceOptions.configFile(environment: environment))
    func env(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
    guard let root = url ?? env(Self.urlVariable) ?? file.url else { return nil }
    guard root.hasPrefix("http://") || root.hasPrefix("https://") else {
      throw CLIFailure("the Info Manager URL must start with http:// or https:// (\(RedactedURL(root)))")
    }
    let key =
      try keyFile.map { try Self.firstLine($0, "--info-manager-key-file") } ?? env(Self.keyVariable) ?? file.apiKey
    var credentials: InfoManagerCredentials?
    if let name = user ?? env(Self.userVariable) ?? file.user {
      guard
        let password = try passwordFile.map({ try Self.firstLine($0, "--info-manager-password-file") }) ?? env(
          Self.passwordVariable) ?? file.password
      else {
        throw CLIFailure(
          "an Info Manager user needs a password: --info-manager-password-file FILE, $\(Self.passwordVariable) or \"password\" in the config file"
        )
      }
      credentials = InfoManagerCredentials(user: name, password: password)
    }
    return InfoManagerConfiguration(
      endpoints: InfoManagerEndpoints(root: root, apiKey: key), credentials: credentials,
      cacheTimeout: file.cacheTimeout,
      http: CurlHTTPClient(
        configuration: HTTPClientConfiguration(
          caFile: caFile, connectTimeout: SecondsOption.duration(min(timeout, 10)),
          lowSpeedTime: SecondsOption.duration(timeout),
          maxTime: SecondsOption.duration(timeout), maxBodyBytes: Self.largestAnswer,
          userAgent: HTTPClientConfiguration.userAgent(version: BuildStamp.version),
          retry: HTTPRetryPolicy(maxAttempts: 2), optionNames: Self.httpOptionNames)))
  }

  /// `configuration()` off the cooperative pool (it reads files).
  func resolvedConfiguration() async throws -> InfoManagerConfiguration? {
    let options = self
    return try await BlockingIO.run { try options.configuration() }
  }

  private static func firstLine(_ path: String, _ flag: String) throws -> String {
    let data: Data
    do { data = try InputFile.read(path, limit: .smallText) } catch { throw CLIFailure("\(flag): \(error)") }
    let line =
      String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
    let text = line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
    guard !text.isEmpty else { throw CLIFailure("\(flag): the first line of \(path) is empty") }
    return text
  }
}

/// A configured Info Manager: where, who, and the client to reach it with.
struct InfoManagerConfiguration: Sendable {
  var endpoints: InfoManagerEndpoints
  var credentials: InfoManagerCredentials?
  /// From the config file; nil: the command's flag or `ResolveCache.defaultTimeout`.
  var cacheTimeout: Double?
  var http: any HTTPClient

  var client: InfoManagerClient { InfoManagerClient(endpoints: endpoints, credentials: credentials, http: http) }

  /// `$XDG_CACHE_HOME/beacon-provision/info-manager.json`, else `~/.cache/beacon-provision/info-manager.json`.
  static func cacheFile(environment: [String: String] = ProcessInfo.processInfo.environment) -> ResolveCacheFile {
    let base =
      environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
      ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.cache")
    return ResolveCacheFile(path: base + "/beacon-provision/info-manager.json")
  }
}
