import ArgumentParser
import Fleet
import Foundation
import Profiles

/// Options shared by `plan` and `apply`.
struct ProvisionOptions: ParsableArguments {
  @Argument(help: "The profile (JSON); see `beacon-provision profile schema`.")
  var profile: String

  @OptionGroup var adapterOptions: AdapterOptions

  @OptionGroup var scanBackend: ScanBackendOption

  @Option(name: .customLong("scan"), help: "Seconds to scan for the profile's devices before connecting.")
  var scanSeconds: Double = 5

  @Option(help: "Links at once on the adapter (controllers hold 3–7 connections).")
  var parallel: Int = 4

  @Option(
    help: "Attempts per device for transient failures (link loss, busy, timeout). A wrong password is never retried.")
  var attempts: Int = 3

  @Option(help: "Seconds before the first retry of a device; later retries wait 4× longer (at most 60 s).")
  var retryDelay: Double = 5

  @Option(help: "Where the journal (and the simulated fleet's state) live. Default: $XDG_STATE_HOME/beacon-provision.")
  var stateDir: String?

  @Flag(help: "Print the result as JSON on standard output (progress still goes to standard error).")
  var json = false

  @OptionGroup(title: "Several gateways (a shared journal)") var shared: SharedJournalOptions

  @OptionGroup var gattCache: GATTCacheOptions

  @OptionGroup var logging: LoggingOptions

  func validate() throws {
    guard parallel >= 1, parallel <= 16 else { throw ValidationError("--parallel must be 1…16") }
    guard attempts >= 1, attempts <= 10 else { throw ValidationError("--attempts must be 1…10") }
    try SecondsOption.validate(retryDelay, "--retry-delay", zeroAllowed: true, atMost: 60)
    try SecondsOption.validate(scanSeconds, "--scan", atMost: 600)
  }

  var stateDirectory: String { StateDirectory.resolve(stateDir) }

  /// Runs `body` with this run's GATT cache (the state directory's file, or none with `--no-gatt-cache`)
  /// bound for every KBeacon opener the campaign makes (`KBeaconOpener.ambientGATTCache`).
  func withGATTCache<T>(_ body: () async throws -> T) async rethrows -> T {
    try await KBeaconOpener.$ambientGATTCache.withValue(
      gattCache.store(stateDirectory: stateDirectory), operation: body)
  }
}

/// `$XDG_STATE_HOME/beacon-provision`, else `~/.local/state/beacon-provision` (XDG Base Directory).
/// `override` scopes another folder to a task and its children (tests give each test its own).
public enum StateDirectory {
  @TaskLocal public static var override: String?

  static func resolve(_ explicit: String?) -> String {
    if let explicit { return explicit }
    if let override { return override }
    let env = ProcessInfo.processInfo.environment
    if let xdg = env["XDG_STATE_HOME"], xdg.hasPrefix("/") { return xdg + "/beacon-provision" }
    return (env["HOME"] ?? NSHomeDirectory()) + "/.local/state/beacon-provision"
  }
}

/// Reads passwords from where the profile says, relative to the profile's folder. Never prints them. A failure
/// names the profile and the JSON path of the `auth` key that said where (`field`: `password` or `newPassword`).
enum Secrets {
  static func read(_ source: SecretSource, field: String = "password", profile: String) throws -> Secret {
    switch source {
    case .factoryDefault:
      return Secret("0000000000000000")
    case .environment(let name):
      guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
        guard SecretSourceName.mayShowVariable(name) else {
          throw CLIFailure(
            "\(profile): $.auth.\(field)Env names an environment variable that is not set (or is empty): export it "
              + "with the password before running (its name is not shown: it is not in capitals, digits and '_', or "
              + "it has 8 to 16 characters and no '_', as a password may, so it may be a password put there by "
              + "mistake)")
        }
        throw CLIFailure(
          "\(profile): $.auth.\(field)Env names the environment variable \(name), which is not set (or is empty): "
            + "export \(name) with the password before running")
      }
      return Secret(value)
    case .file(let path):
      let full =
        path.hasPrefix("/") ? path : (profile as NSString).deletingLastPathComponent.appendingPathComponent(path)
      let at = "\(profile): $.auth.\(field)File"
      let data: Data
      do {
        data = try InputFile.read(full, limit: .smallText)
      } catch {
        if !SecretSourceName.mayShowFile(path), !FileManager.default.fileExists(atPath: full) {
          // The profile's folder, not the file's: a folder taken from the value would show part of it.
          let folder = (profile as NSString).deletingLastPathComponent
          throw CLIFailure(
            "\(at): there is no such password file in \(folder.isEmpty ? "the current directory" : folder) (its "
              + "name is not shown: it has a '+', '=' or space, or a password's 8 to 16 characters with no extension "
              + "of letters and either no '/' or a digit, so it may be a password put there by mistake)")
        }
        throw CLIFailure("\(at): cannot read the password file: \(error)")
      }
      guard let line = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first else {
        throw CLIFailure("\(at): the password file \(full) is empty (its first line is the password)")
      }
      return Secret(String(line))
    }
  }
}

/// Whether the value of an `auth` key that names a password's source may be repeated in a message. A
/// password put where its variable's or file's name belongs is refused when it cannot be a name
/// (`EnvironmentVariableName`), but it often can be (`Summer2024`). [I] A message repeats the value only when
/// it looks like what belongs there and unlike a KBeacon password, which is 8 to 16 characters
/// (docs/protocols/kbeacon.md §5): a variable name in capitals, digits and `_` (the usual
/// convention) that is shorter or longer than that or has a `_` (`SITE_2_PW`, `PW`, `SITE2PW`, not
/// `A1B2C3D4E5F6A7B8`, `KBEACONSECUREKEY` or `PASSWORD`, each of which can be the password itself); a file path
/// with no `+`, `=` or space (base64 and passphrases have them) that is shorter or longer than a password, is
/// absolute, has a name with an extension of letters (`pw.txt`), or has a `/` and no digit (`secrets/site`,
/// not `k9/Xa2bQ`). Otherwise it points at the key and says why the value is left out. Easy to change: these
/// two checks are the whole rule.
enum SecretSourceName {
  /// A KBeacon password's length in characters; a value of another length cannot be one.
  static let passwordLengths = 8...16

  /// Whether `value` has a password's length, counted as characters, UTF-16 units (as Android's SDK counts)
  /// or UTF-8 bytes (as the device stores it): any of the three may be the one a device goes by.
  static func mayBePassword(length value: String) -> Bool {
    [value.count, value.utf16.count, value.utf8.count].contains(where: passwordLengths.contains)
  }

  static func mayShowVariable(_ name: String) -> Bool {
    let scalars = name.unicodeScalars
    guard let first = scalars.first, ("A"..."Z").contains(first) || first == "_" else { return false }
    let conventional = scalars.allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    return conventional && (!mayBePassword(length: name) || name.contains("_"))
  }

  static func mayShowFile(_ path: String) -> Bool {
    if path.contains(where: { "+= ".contains($0) }) { return false }
    if path.hasPrefix("/") || !mayBePassword(length: path) { return true }
    let name = path.split(separator: "/").last.map(String.init) ?? path
    if let dot = name.lastIndex(of: "."), dot != name.startIndex {
      let fileExtension = name[name.index(after: dot)...]
      if !fileExtension.isEmpty,
        fileExtension.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) })
      {
        return true
      }
    }
    return path.contains("/") && !path.unicodeScalars.contains { ("0"..."9").contains($0) }
  }
}

extension String {
  func appendingPathComponent(_ c: String) -> String { (self as NSString).appendingPathComponent(c) }
}
