import ArgumentParser
import Foundation

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

/// JSON as every `--json` flag prints it: sorted keys, pretty, stable across runs.
enum JSONOutput {
  static func string(_ value: some Encodable, pretty: Bool = true) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting =
      pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
  }
}

/// Writes lines to standard error (progress, warnings, failures) so standard output stays clean for `--json`.
enum FileHandleOutput {
  static func standardError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
  }
}
