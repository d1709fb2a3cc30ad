import ArgumentParser
import Foundation
import KBeacon

/// Where a KBeacon password comes from (docs/protocols/kbeacon.md §5), in this order: `--password-file FILE`
/// (first line, trailing newline removed), the `BEACON_PASSWORD` environment variable, or the factory
/// default `0000000000000000`. `--password` on the command line (visible in `ps` and shell history) is
/// accepted only together with `--insecure-password-argument`. The password is never printed.
public struct PasswordOptions: ParsableArguments, Sendable {
  public static let environmentVariable = "BEACON_PASSWORD"

  @Option(help: ArgumentHelp("Read the device password from the first line of FILE.", valueName: "file"))
  public var passwordFile: String?

  @Option(help: ArgumentHelp("The device password (needs --insecure-password-argument).", visibility: .hidden))
  public var password: String?

  @Flag(help: ArgumentHelp("Allow --password on the command line.", visibility: .hidden))
  public var insecurePasswordArgument = false

  public init() {}

  public func validate() throws {
    if password != nil, !insecurePasswordArgument {
      throw ValidationError(
        "--password puts the secret in shell history and the process list; use --password-file or \(Self.environmentVariable) (or add --insecure-password-argument)"
      )
    }
    if password != nil, passwordFile != nil {
      throw ValidationError("give either --password or --password-file, not both")
    }
  }

  /// Where the password comes from, for logs — never the password: `--password-file FILE`, `--password`,
  /// `$BEACON_PASSWORD`, or `factory default`.
  public func source(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
    if password != nil { return "--password" }
    if let passwordFile { return "--password-file \(passwordFile)" }
    if environment[Self.environmentVariable] != nil { return "$\(Self.environmentVariable)" }
    return "factory default"
  }

  /// `resolve()` for async commands: a `--password-file` is read off the cooperative pool (`BlockingIO`).
  func resolved() async throws -> KBeaconPassword {
    let options = self
    return try await BlockingIO.run { try options.resolve() }
  }

  /// The password to use. Errors never contain the secret.
  public func resolve(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> KBeaconPassword {
    let text: String
    if let password {
      text = password
    } else if let passwordFile {
      let data: Data
      do { data = try InputFile.read(passwordFile, limit: .smallText) } catch {
        throw CLIFailure("--password-file: \(error)")
      }
      text =
        String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).first
        .map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: "\r")) } ?? ""
    } else if let fromEnvironment = environment[Self.environmentVariable] {
      text = fromEnvironment
    } else {
      return .factoryDefault
    }
    do {
      return try KBeaconPassword(text)
    } catch {
      throw CLIFailure(error.description)
    }
  }
}
