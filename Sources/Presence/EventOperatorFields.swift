import JSON
import Profiles

/// An event definition's own words for whoever receives its events (Lighthouse's `LHEvent` carries an
/// operator `message` and a free `payload`; docs/protocols/lighthouse.md): `message` is text, `payload` any JSON
/// value, both copied into every event the definition fires (the webhook body, the `--jsonl` line and the
/// command action's `BEACON_EVENT`) under `"message"` and `"payload"`.
///
/// [I] Limits, so one events file cannot make every webhook body huge: a message of at most 1,000 UTF-8
/// bytes without control characters (it is shown on terminals too), a payload of at most 16 KiB as JSON
/// text and 16 levels deep.
enum EventOperatorFields {
  static let messageBytes = 1_000
  static let payloadBytes = 16 * 1024
  static let payloadDepth = 16

  static func message(_ json: SourceJSON?, _ path: JSONPath, _ reader: inout EventFileReader) -> String? {
    guard let text = reader.string(json, path) else { return nil }
    if text.utf8.count > messageBytes {
      reader.problem(
        json, path, "is \(text.utf8.count) bytes long", allowed: "text of at most \(messageBytes) UTF-8 bytes")
      return nil
    }
    if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
      reader.problem(json, path, "contains a control character", allowed: "text without control characters")
      return nil
    }
    return text
  }

  static func payload(_ json: SourceJSON?, _ path: JSONPath, _ reader: inout EventFileReader) -> JSONValue? {
    guard let json else { return nil }
    let value: JSONValue
    do { value = try Self.value(json, depth: 0) } catch {
      reader.problem(json, path, error.message, allowed: error.allowed)
      return nil
    }
    let size = JSONWriter.text(value).utf8.count
    if size > payloadBytes {
      reader.problem(json, path, "is \(size) bytes as JSON", allowed: "at most \(payloadBytes) bytes")
      return nil
    }
    return value
  }

  struct Refusal: Error {
    var message: String
    var allowed: String
  }

  /// The parsed value as a `JSONValue`, a number in its integer form when it has one; refused past
  /// `payloadDepth` levels or for a number beyond `Double`'s range.
  static func value(_ json: SourceJSON, depth: Int) throws(Refusal) -> JSONValue {
    guard depth <= payloadDepth else {
      throw Refusal(
        message: "nests deeper than \(payloadDepth) levels", allowed: "JSON at most \(payloadDepth) levels deep")
    }
    switch json.kind {
    case .null: return .null
    case .bool(let b): return .bool(b)
    case .string(let s): return .string(s)
    case .number(let n, let text):
      guard n.isFinite else {
        throw Refusal(message: "\(text.prefix(40)) is out of range", allowed: "numbers within ±1.8e308")
      }
      return Int(exactly: n).map { .int($0) } ?? .double(n)
    case .array(let items):
      var out: [JSONValue] = []
      for item in items { out.append(try value(item, depth: depth + 1)) }
      return .array(out)
    case .object(let members):
      var out = JSONObject()
      for member in members { out[member.key] = try value(member.value, depth: depth + 1) }
      return .object(out)
    }
  }
}
