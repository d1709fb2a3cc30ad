import BeaconCore

/// One problem found in a file the tool reads (a profile, an inventory, a fleet file, a cache, a manifest …):
/// where it is — file, line, column, JSON path — what is wrong, and what would be allowed. Every reader of a
/// JSON file reports in this one shape; validation collects all of them before any radio work.
public struct JSONDiagnostic: Sendable, Hashable, CustomStringConvertible, Error {
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

  /// `retail.json:12:17: $.desired.slots[0].major: 70000 is out of range (allowed: 0…65535)`; a misspelt key
  /// adds the closest known one: `fleet.json:1:30: $.devices[0].adress: unknown key "adress" — did you mean
  /// "address"? (allowed: address, kind, …)`.
  public var description: String {
    var text = file
    if let position { text += ":\(position)" }
    // [I] A problem with the whole file that has no place in it (it cannot be read) names no path.
    text += position == nil && path.components.isEmpty ? ": \(message)" : ": \(path): \(message)"
    if let allowed { text += " (allowed: \(allowed))" }
    return text
  }
}

extension JSONDiagnostic {
  /// A key the object at `path` does not take, with the closest known key when one is a likely typo:
  /// `fleet.json:4:7: $.devices[0].adress: unknown key "adress" — did you mean "address"? (allowed: …)`.
  public static func unknownKey(
    _ key: String, file: String, position: SourcePosition?, in path: JSONPath, known: [String]
  ) -> JSONDiagnostic {
    let hint = Suggestion.closest(to: key, in: known).map { " — did you mean \"\($0)\"?" } ?? ""
    return JSONDiagnostic(
      file: file, position: position, path: path.appending(key), message: "unknown key \"\(key.echoed)\"\(hint)",
      allowed: known.joined(separator: ", "))
  }

  /// Text that is not JSON at all: the parser's place and reason, at the document's root.
  public static func syntax(_ error: JSONSyntaxError, file: String) -> JSONDiagnostic {
    JSONDiagnostic(file: file, position: error.position, path: .root, message: "not valid JSON: \(error.message)")
  }
}
