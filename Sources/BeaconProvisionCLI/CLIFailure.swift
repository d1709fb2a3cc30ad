import ArgumentParser
import Foundation
import JSON

/// An error the operator can act on: printed as one line `Error: …` with no stack trace, exit code 1
/// (or the given code).
public struct CLIFailure: Error, CustomStringConvertible {
  /// How every error line the tool prints begins: ArgumentParser's form for the errors it prints, so a usage
  /// error and a failure look alike (developer guide, naming rules).
  public static let linePrefix = "Error: "

  public var message: String
  public var exitCode: Int32

  public init(_ message: String, exitCode: Int32 = 1) {
    self.message = message
    self.exitCode = exitCode
  }

  public var description: String { message }
}

extension CLIFailure: LocalizedError {
  public var errorDescription: String? { message }
}

/// JSON as every `--json` flag prints it: sorted keys, pretty (`"key": value`, the JSON module's one style),
/// stable across runs.
enum JSONOutput {
  static func string(_ value: some Encodable, pretty: Bool = true) throws -> String {
    let json = try JSONValueEncoder(sortedKeys: true).encode(value)
    return pretty ? JSONWriter.pretty(json) : JSONWriter.text(json)
  }
}

/// Writes lines to standard error (progress, warnings, failures) so standard output stays clean for `--json`.
enum FileHandleOutput {
  static func standardError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
  }
}
