/// `Codable` for `JSONValue`, for JSON embedded in other documents (a fleet file's KBeacon settings).
/// Key order of objects follows the decoder's `allKeys`, which Foundation does not promise to keep [I];
/// use `JSONParser` where order matters.
extension JSONValue: Codable {
  private struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  public init(from decoder: any Decoder) throws {
    if let keyed = try? decoder.container(keyedBy: Key.self) {
      var object = JSONObject()
      for key in keyed.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
        object[key.stringValue] = try keyed.decode(JSONValue.self, forKey: key)
      }
      self = .object(object)
    } else if var unkeyed = try? decoder.unkeyedContainer() {
      var items: [JSONValue] = []
      while !unkeyed.isAtEnd { items.append(try unkeyed.decode(JSONValue.self)) }
      self = .array(items)
    } else {
      let single = try decoder.singleValueContainer()
      if single.decodeNil() {
        self = .null
      } else if let b = try? single.decode(Bool.self) {
        self = .bool(b)
      } else if let i = try? single.decode(Int.self) {
        self = .int(i)
      } else if let d = try? single.decode(Double.self) {
        // A decoder with a non-conforming float strategy can hand over ±∞/NaN, which JSON cannot hold.
        guard d.isFinite else {
          throw DecodingError.dataCorruptedError(in: single, debugDescription: "\(d) is no JSON number")
        }
        self = .double(d)
      } else {
        self = .string(try single.decode(String.self))
      }
    }
  }

  public func encode(to encoder: any Encoder) throws {
    switch self {
    case .null:
      var c = encoder.singleValueContainer()
      try c.encodeNil()
    case .bool(let b):
      var c = encoder.singleValueContainer()
      try c.encode(b)
    case .number(let n):
      var c = encoder.singleValueContainer()
      if let i = Int(n.text) { try c.encode(i) } else { try c.encode(n.doubleValue) }
    case .string(let s):
      var c = encoder.singleValueContainer()
      try c.encode(s)
    case .array(let items):
      var c = encoder.unkeyedContainer()
      for item in items { try c.encode(item) }
    case .object(let object):
      var c = encoder.container(keyedBy: Key.self)
      for (key, value) in object { try c.encode(value, forKey: Key(stringValue: key)) }
    }
  }
}
