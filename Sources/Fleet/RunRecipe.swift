import Foundation
import NordicDFU

/// What a run was made from, so a run id reused with other input is refused: the kind of input and the SHA-256 of its
/// content — `profile sha256:…` (a configuration profile with its inventory), `text-command profile sha256:…`,
/// `package sha256:…` (one DFU package), `catalogue sha256:…` (a firmware catalogue and the version asked
/// for). Both journals keep it with the run (SQLite migration "v5", PostgreSQL schema version 4), so a run id
/// reused with something else — `--run site1` with another profile, which joined the old run and found
/// every device already done — is refused instead of silently doing nothing.
///
/// A run journalled before recipes were recorded has none and is accepted as before [I: old journals stay
/// usable; the check starts with the runs made after the upgrade].
public struct RunRecipe: Sendable, Hashable, CustomStringConvertible {
  /// As the journal stores it: `<input> sha256:<64 hex digits>`.
  public let text: String

  /// `input` names the kind of input (`profile`, `package`, …); `content` is every byte it was made from.
  public init(_ input: String, content: [UInt8]) {
    text = "\(input) sha256:" + SHA256Digest.hash(content).map { String(format: "%02x", $0) }.joined()
  }

  public var description: String { text }

  /// Throws `RunRecipeMismatch` when `recorded` (the run's) and `given` (this invocation's) differ; a run
  /// without a recorded recipe, or a caller without one, passes.
  public static func check(run: String, location: String, recorded: String?, given: String?) throws(RunRecipeMismatch) {
    guard let recorded, let given, recorded != given else { return }
    throw RunRecipeMismatch(run: run, location: location, recorded: recorded, given: given)
  }
}

/// A run id given again (`--run`, `--resume`) with another profile, package or kind of campaign than the run
/// was made from.
public struct RunRecipeMismatch: Error, Sendable, Hashable, CustomStringConvertible {
  public var run: String
  public var location: String
  public var recorded: String
  public var given: String

  public var description: String {
    "run \(run) in \(location) was made from another \(Self.input(recorded)) (\(recorded)), not this \(Self.input(given)) "
      + "(\(given)): its devices and their states belong to that campaign. Start a new run for this one — another "
      + "--run name (e.g. --run \(run)-2), or none for a new id — or give the \(Self.input(recorded)) it was made from to go on with it"
  }

  /// `profile sha256:…` → `profile`.
  static func input(_ recipe: String) -> String {
    recipe.range(of: " sha256:").map { String(recipe[..<$0.lowerBound]) } ?? recipe
  }
}
