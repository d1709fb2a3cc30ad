import Foundation

/// Turns an `Encodable` value into a `JSONValue`, which `JSONWriter` prints: the one way the tool writes
/// JSON, in place of Foundation's `JSONEncoder` (whose pretty style, `"key" : value`, differed from the
/// rest of the tool's output). Foundation's value types are written as `JSONEncoder` writes them by
/// default — `URL` as its text, `Data` as Base64, `Date` as seconds since 2001 or, with `.iso8601`, RFC 3339
/// text — and a non-finite number is an error, as there.
public struct JSONValueEncoder: Sendable {
  /// Object keys sorted (as `JSONEncoder`'s `.sortedKeys`), or in the order the type encodes them.
  public var sortedKeys: Bool
  public var dates: JSONFileDecoder.DateStyle

  public init(sortedKeys: Bool = true, dates: JSONFileDecoder.DateStyle = .secondsSince2001) {
    self.sortedKeys = sortedKeys
    self.dates = dates
  }

  public func encode(_ value: some Encodable) throws -> JSONValue {
    let node = JSONValueNode()
    try JSONValueEncoderCore(node: node, codingPath: [], dates: dates).encodeValue(value)
    return node.value(sortedKeys: sortedKeys)
  }

  /// Compact text (`{"a":1}`), for a record on one line or in a database column.
  public func text(_ value: some Encodable) throws -> String { JSONWriter.text(try encode(value)) }

  /// Indented text for people and files people open (`"key": value`), ending with a line feed.
  public func pretty(_ value: some Encodable) throws -> String { JSONWriter.pretty(try encode(value)) + "\n" }
}

/// A value being built: a scalar, an object or an array whose members are filled in as the type encodes.
final class JSONValueNode {
  enum Content {
    case empty
    case scalar(JSONValue)
    case object(keys: [String], members: [String: JSONValueNode])
    case array([JSONValueNode])
  }

  var content = Content.empty

  func makeObject() {
    if case .object = content { return }
    content = .object(keys: [], members: [:])
  }

  func makeArray() {
    if case .array = content { return }
    content = .array([])
  }

  func set(_ key: String, _ child: JSONValueNode) {
    makeObject()
    guard case .object(var keys, var members) = content else { return }
    if members[key] == nil { keys.append(key) }
    members[key] = child
    content = .object(keys: keys, members: members)
  }

  func append(_ child: JSONValueNode) {
    makeArray()
    guard case .array(var items) = content else { return }
    items.append(child)
    content = .array(items)
  }

  func value(sortedKeys: Bool) -> JSONValue {
    switch content {
    case .empty: return .object(JSONObject())
    case .scalar(let v): return v
    case .array(let items): return .array(items.map { $0.value(sortedKeys: sortedKeys) })
    case .object(let keys, let members):
      var object = JSONObject()
      for key in sortedKeys ? keys.sorted() : keys { object[key] = members[key]!.value(sortedKeys: sortedKeys) }
      return .object(object)
    }
  }
}

/// The `Encoder` writing into one `JSONValueNode`.
struct JSONValueEncoderCore: Encoder {
  let node: JSONValueNode
  let codingPath: [any CodingKey]
  let dates: JSONFileDecoder.DateStyle
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func child(_ key: any CodingKey) -> JSONValueEncoderCore {
    JSONValueEncoderCore(node: JSONValueNode(), codingPath: codingPath + [key], dates: dates)
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    node.makeObject()
    return KeyedEncodingContainer(JSONValueKeyedContainer<Key>(encoder: self))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    node.makeArray()
    return JSONValueUnkeyedContainer(encoder: self)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer { JSONValueSingleValue(encoder: self) }

  func encodeValue<T: Encodable>(_ value: T) throws {
    switch value {
    case let date as Date:
      switch dates {
      case .secondsSince2001: try put(date.timeIntervalSinceReferenceDate)
      case .iso8601: node.content = .scalar(.string(date.formatted(.iso8601)))
      }
    case let url as URL: node.content = .scalar(.string(url.absoluteString))
    case let data as Data: node.content = .scalar(.string(data.base64EncodedString()))
    default: try value.encode(to: self)
    }
  }

  func put(_ value: Double) throws {
    guard value.isFinite else {
      throw EncodingError.invalidValue(
        value, .init(codingPath: codingPath, debugDescription: "\(value) is no JSON number"))
    }
    node.content = .scalar(.double(value))
  }

  /// A `Float` as its own shortest text (`0.1`, not the `0.10000000149011612` of its `Double`), integral
  /// values without a fraction, as `JSONEncoder` writes them.
  func put(float value: Float) throws {
    guard value.isFinite, value.rounded() != value || abs(value) >= 1e15 else {
      try put(Double(value))
      return
    }
    node.content = .scalar(.number(JSONNumber(text: "\(value)")))
  }

  func put(_ value: some FixedWidthInteger) { node.content = .scalar(.number(JSONNumber(text: String(value)))) }
  func put(_ value: JSONValue) { node.content = .scalar(value) }
}
