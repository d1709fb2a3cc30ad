import BeaconCore
import KBeacon

/// A path into a JSON document, printed the way operators read it: `$.desired.slots[0].major`.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
  public enum Component: Sendable, Hashable {
    case key(String)
    case index(Int)
  }

  public var components: [Component]

  public init(_ components: [Component] = []) { self.components = components }

  public static let root = JSONPath()

  public func appending(_ key: String) -> JSONPath { JSONPath(components + [.key(key)]) }
  public func appending(_ index: Int) -> JSONPath { JSONPath(components + [.index(index)]) }

  public var description: String {
    components.reduce("$") { text, c in
      switch c {
      case .key(let k):
        k.utf8.count <= TerminalText.echoLimit && k.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
          ? "\(text).\(k)" : "\(text)[\"\(k.echoed)\"]"
      case .index(let i): "\(text)[\(i)]"
      }
    }
  }
}

/// One problem found in a profile (or an inventory file): where it is — file, line, column, JSON path —
/// what is wrong, and what would be allowed. Validation collects all of them before any radio work.
public struct ProfileDiagnostic: Sendable, Hashable, CustomStringConvertible, Error {
  public var file: String
  public var position: SourcePosition?
  public var path: JSONPath
  public var message: String
  /// The allowed range or values, e.g. `0…65535` or `ibeacon, eddystone-uid, …`.
  public var allowed: String?

  public init(file: String, position: SourcePosition?, path: JSONPath, message: String, allowed: String? = nil) {
    self.file = file
    self.position = position
    self.path = path
    self.message = message
    self.allowed = allowed
  }

  /// `retail.json:12:17: $.desired.slots[0].major: 70000 is out of range (allowed: 0…65535)`
  public var description: String {
    var text = file
    if let position { text += ":\(position)" }
    text += ": \(path): \(message)"
    if let allowed { text += " (allowed: \(allowed))" }
    return text
  }
}

/// Every diagnostic of one decoding, in file order. Thrown when non-empty.
public struct ProfileDiagnostics: Error, Sendable, CustomStringConvertible {
  public var all: [ProfileDiagnostic]
  /// What the diagnostics are about, for the closing line: "the profile", or "the inventory" when only an
  /// inventory file (`--inventory`) was read.
  public var subject: String

  public init(_ all: [ProfileDiagnostic], subject: String = "the profile") {
    self.subject = subject
    self.all = all.sorted {
      ($0.position?.offset ?? .max, $0.path.description) < ($1.position?.offset ?? .max, $1.path.description)
    }
  }

  public var description: String {
    let n = all.count
    return all.map(\.description).joined(separator: "\n")
      + "\n\(n) error\(n == 1 ? "" : "s") in \(subject); nothing was sent to any device"
  }
}
