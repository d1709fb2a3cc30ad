import BeaconCore
import Foundation

/// The `Decoder` behind `JSONFileDecoder`: one node of a parsed `SourceJSON` tree. Every problem it finds
/// is thrown as a `JSONDiagnostic` at the node's line and column, so a type's own `init(from:)` never has
/// to know about positions.
final class JSONTreeDecoder: Decoder {
  struct Context {
    var file: String
    var dates: JSONFileDecoder.DateStyle
  }

  let node: SourceJSON
  let codingPath: [any CodingKey]
  let context: Context
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(_ node: SourceJSON, path: [any CodingKey], context: Context) {
    self.node = node
    self.codingPath = path
    self.context = context
  }

  var jsonPath: JSONPath {
    JSONPath(codingPath.map { key in key.intValue.map { .index($0) } ?? .key(key.stringValue) })
  }

  var isNull: Bool { node.kind == .null }

  func problem(
    _ message: String, at position: SourcePosition? = nil, path: JSONPath? = nil, allowed: String? = nil
  ) -> JSONDiagnostic {
    JSONDiagnostic(
      file: context.file, position: position ?? node.position, path: path ?? jsonPath, message: message,
      allowed: allowed)
  }

  func child(_ value: SourceJSON, _ key: any CodingKey) -> JSONTreeDecoder {
    JSONTreeDecoder(value, path: codingPath + [key], context: context)
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard case .object(let members) = node.kind else { throw problem("expected an object, found \(node.typeName)") }
    var seen: Set<String> = []
    for member in members where !seen.insert(member.key).inserted {
      throw problem(
        "key \"\(member.key.echoed)\" appears twice", at: member.keyPosition, path: jsonPath.appending(member.key))
    }
    return KeyedDecodingContainer(JSONTreeKeyedContainer<Key>(decoder: self, members: members))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard case .array(let items) = node.kind else { throw problem("expected an array, found \(node.typeName)") }
    return JSONTreeUnkeyedContainer(decoder: self, items: items)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer { JSONTreeSingleValue(decoder: self) }

  func rejectUnknownKeys(known: [String]) throws(JSONDiagnostic) {
    guard case .object(let members) = node.kind else { return }
    for member in members where !known.contains(member.key) {
      throw .unknownKey(member.key, file: context.file, position: member.keyPosition, in: jsonPath, known: known)
    }
  }

  /// This node as a `T`: Foundation's value types the way `JSONDecoder` reads them, anything else by its
  /// own `init(from:)`.
  func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
    if T.self == Date.self {
      switch context.dates {
      case .secondsSince2001: return Date(timeIntervalSinceReferenceDate: try decodeDouble()) as! T
      case .iso8601:
        let text = try decodeString()
        guard let date = try? Date(text, strategy: .iso8601) else {
          throw problem("\"\(text.echoed)\" is not a date and time", allowed: "RFC 3339, e.g. 2026-11-27T12:00:00Z")
        }
        return date as! T
      }
    }
    if T.self == URL.self {
      let text = try decodeString()
      guard let url = URL(string: text) else { throw problem("\"\(text.echoed)\" is not a URL") }
      return url as! T
    }
    if T.self == Data.self {
      let text = try decodeString()
      guard let data = Data(base64Encoded: text) else { throw problem("expected Base64 text") }
      return data as! T
    }
    return try T(from: self)
  }

  func decodeBool() throws(JSONDiagnostic) -> Bool {
    guard case .bool(let b) = node.kind else { throw problem("expected true or false, found \(node.typeName)") }
    return b
  }

  func decodeString() throws(JSONDiagnostic) -> String {
    guard case .string(let s) = node.kind else { throw problem("expected a string, found \(node.typeName)") }
    return s
  }

  func decodeDouble() throws(JSONDiagnostic) -> Double {
    guard case .number(let value, let text) = node.kind else {
      throw problem("expected a number, found \(node.typeName)")
    }
    guard value.isFinite else { throw problem("\(text.echoed) is out of range") }
    return value
  }

  func decodeInteger<T: FixedWidthInteger>(_ type: T.Type) throws(JSONDiagnostic) -> T {
    let range = "\(T.min)…\(T.max)"
    guard case .number(let value, let text) = node.kind, value.rounded() == value else {
      throw problem("expected an integer, found \(node.typeName)", allowed: range)
    }
    if let exact = T(text) { return exact }
    guard value.isFinite, let exact = T(exactly: value) else {
      throw problem("\(text.echoed) is out of range", allowed: range)
    }
    return exact
  }
}
