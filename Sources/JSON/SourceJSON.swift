import BeaconCore

/// A place in a text file: 1-based line and column (columns count Unicode scalars), and the byte offset.
public struct SourcePosition: Sendable, Hashable, Comparable, CustomStringConvertible {
  public var line: Int
  public var column: Int
  public var offset: Int

  public init(line: Int, column: Int, offset: Int) {
    self.line = line
    self.column = column
    self.offset = offset
  }

  public static func < (a: Self, b: Self) -> Bool { a.offset < b.offset }
  public var description: String { "\(line):\(column)" }
}

/// A JSON value (RFC 8259) as `JSONParser` reads it, remembering where each part stood in its text, so
/// that every profile error can name the file, line and column as well as the JSON path. Object members
/// keep their order and duplicates are kept (the profile decoder reports them).
public struct SourceJSON: Sendable, Hashable {
  public indirect enum Kind: Sendable, Hashable {
    case object([Member])
    case array([SourceJSON])
    case string(String)
    /// The number's value and its exact text (so `1.0` and `1` can be told apart, and integers above 2^53
    /// are not silently rounded). The value is ±infinity for a text beyond `Double`'s range (`-1e400`).
    case number(Double, text: String)
    case bool(Bool)
    case null
  }

  public struct Member: Sendable, Hashable {
    public var key: String
    public var keyPosition: SourcePosition
    public var value: SourceJSON

    public init(key: String, keyPosition: SourcePosition, value: SourceJSON) {
      self.key = key
      self.keyPosition = keyPosition
      self.value = value
    }
  }

  public var kind: Kind
  public var position: SourcePosition

  public init(kind: Kind, position: SourcePosition) {
    self.kind = kind
    self.position = position
  }

  /// The member named `key` (the first, if duplicated).
  public subscript(key: String) -> SourceJSON? {
    guard case .object(let members) = kind else { return nil }
    return members.first { $0.key == key }?.value
  }

  /// What this value is, for "expected an integer, found a string" messages.
  public var typeName: String {
    switch kind {
    case .object: "an object"
    case .array: "an array"
    case .string: "a string"
    case .number(let v, _): v.isFinite && v.rounded() == v ? "an integer" : "a number"
    case .bool: "a boolean"
    case .null: "null"
    }
  }
}

/// Where and why a text is not valid JSON.
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
  public var message: String
  public var position: SourcePosition
  public var description: String { "\(position): \(message)" }
}

extension JSONValue {
  /// `source` without its positions. A key given twice in one object is an error at its second
  /// occurrence (a `JSONObject` holds each key once).
  public init(_ source: SourceJSON) throws(JSONSyntaxError) {
    switch source.kind {
    case .null: self = .null
    case .bool(let b): self = .bool(b)
    case .number(_, let text): self = .number(JSONNumber(text: text))
    case .string(let s): self = .string(s)
    case .array(let items):
      var values: [JSONValue] = []
      values.reserveCapacity(items.count)
      for item in items { values.append(try JSONValue(item)) }
      self = .array(values)
    case .object(let members):
      var object = JSONObject()
      for member in members {
        guard object[member.key] == nil else {
          throw JSONSyntaxError(message: "duplicate key \"\(member.key.echoed)\"", position: member.keyPosition)
        }
        object[member.key] = try JSONValue(member.value)
      }
      self = .object(object)
    }
  }
}
