import BeaconCore
import JSON
import Profiles

/// Typed reads of an events file's JSON that collect every problem with its file, line, column and JSON
/// path (the profile's `JSONDiagnostic`), so one run reports them all.
struct EventFileReader {
  let file: String
  var problems: [JSONDiagnostic] = []

  init(file: String) { self.file = file }

  mutating func problem(_ json: SourceJSON?, _ path: JSONPath, _ message: String, allowed: String? = nil) {
    problems.append(
      JSONDiagnostic(file: file, position: json?.position, path: path, message: message, allowed: allowed))
  }

  /// The members of an object, each key once; unknown and repeated keys are problems.
  mutating func object(_ json: SourceJSON, _ path: JSONPath, keys: [String]) -> [String: SourceJSON]? {
    guard case .object(let members) = json.kind else {
      problem(json, path, "expected an object, found \(json.typeName)")
      return nil
    }
    var out: [String: SourceJSON] = [:]
    for member in members {
      let at = SourceJSON(kind: .null, position: member.keyPosition)
      if !keys.contains(member.key) {
        problems.append(.unknownKey(member.key, file: file, position: member.keyPosition, in: path, known: keys))
      } else if out[member.key] != nil {
        problem(at, path.appending(member.key), "duplicate key")
      } else {
        out[member.key] = member.value
      }
    }
    return out
  }

  mutating func string(_ json: SourceJSON?, _ path: JSONPath) -> String? {
    guard let json else { return nil }
    guard case .string(let s) = json.kind else {
      problem(json, path, "expected a string, found \(json.typeName)")
      return nil
    }
    return s
  }

  mutating func bool(_ json: SourceJSON?, _ path: JSONPath) -> Bool? {
    guard let json else { return nil }
    guard case .bool(let b) = json.kind else {
      problem(json, path, "expected true or false, found \(json.typeName)")
      return nil
    }
    return b
  }

  /// A number within `range` (integers only when `integer`).
  mutating func number(_ json: SourceJSON?, _ path: JSONPath, _ range: ClosedRange<Double>, integer: Bool = false)
    -> Double?
  {
    guard let json else { return nil }
    guard case .number(let value, let text) = json.kind, !integer || value.rounded() == value else {
      problem(json, path, "expected \(integer ? "an integer" : "a number"), found \(json.typeName)")
      return nil
    }
    guard range.contains(value) else {
      let bounds =
        integer ? "\(Int(range.lowerBound))…\(Int(range.upperBound))" : "\(range.lowerBound)…\(range.upperBound)"
      problem(json, path, "\(text.echoed) is out of range", allowed: bounds)
      return nil
    }
    return value
  }

  mutating func int(_ json: SourceJSON?, _ path: JSONPath, _ range: ClosedRange<Int>) -> Int? {
    number(json, path, Double(range.lowerBound)...Double(range.upperBound), integer: true).map { Int($0) }
  }

  /// An array of strings (each checked by `check`, which returns a message for a bad one).
  mutating func strings(_ json: SourceJSON?, _ path: JSONPath, check: (String) -> String? = { _ in nil }) -> [String]? {
    guard let json else { return nil }
    guard case .array(let items) = json.kind else {
      problem(json, path, "expected an array of strings, found \(json.typeName)")
      return nil
    }
    var out: [String] = []
    for (i, item) in items.enumerated() {
      guard let s = string(item, path.appending(i)) else { continue }
      if let message = check(s) { problem(item, path.appending(i), message) } else { out.append(s) }
    }
    return out
  }

  /// One of `values` (the allowed list is shown when it is not).
  mutating func choice<T>(_ json: SourceJSON?, _ path: JSONPath, _ values: [(String, T)]) -> T? {
    guard let text = string(json, path) else { return nil }
    if let match = values.first(where: { $0.0 == text }) { return match.1 }
    problem(json, path, "\"\(text.echoed)\" is not allowed", allowed: values.map(\.0).joined(separator: ", "))
    return nil
  }
}
