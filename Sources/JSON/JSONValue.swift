/// A JSON value that keeps what Foundation's `JSONSerialization` loses: object key order and the exact text
/// of numbers (`1000.0` stays `1000.0`). The KBeacon wire JSON (docs/protocols/kbeacon.md §4.2, §6) is compact
/// and order-preserving, and the device's own number formatting survives a read → write round trip.
public enum JSONValue: Hashable, Sendable, CustomStringConvertible {
  case null
  case bool(Bool)
  case number(JSONNumber)
  case string(String)
  case array([JSONValue])
  case object(JSONObject)

  public static func int(_ value: Int) -> JSONValue { .number(JSONNumber(value)) }
  public static func double(_ value: Double) -> JSONValue { .number(JSONNumber(value)) }

  public var intValue: Int? {
    if case .number(let n) = self { return n.intValue }
    return nil
  }

  public var doubleValue: Double? {
    if case .number(let n) = self { return n.doubleValue }
    return nil
  }

  public var stringValue: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  public var objectValue: JSONObject? {
    if case .object(let o) = self { return o }
    return nil
  }

  public var arrayValue: [JSONValue]? {
    if case .array(let a) = self { return a }
    return nil
  }

  /// Compact JSON text, as the SDKs send it.
  public var description: String { JSONWriter.text(self) }
}

/// A JSON number kept as its text. Two numbers are equal when their values are equal (`1000` == `1000.0`),
/// so a diff does not see a change where only the formatting differs.
public struct JSONNumber: Hashable, Sendable, CustomStringConvertible {
  /// The number as it appears in JSON text.
  public let text: String

  /// Trusts `text` to be a valid JSON number (the parser checks before calling this).
  init(text: String) { self.text = text }

  public init(_ value: Int) { text = String(value) }

  /// An integral value prints without a fraction, as the SDKs send a float such as `advPrd` 760 ms
  /// (docs/protocols/kbeacon.md §6.4: "float ms", Apple-friendly values 152.5 … 760 … 1285): Android's org.json
  /// writes a double equal to its long as the long, and Apple's JSONSerialization writes 760.0 as `760`, so
  /// `"advPrd":760` is what a device has always been sent; `760.0` came only from this tool.
  /// Other values print as Swift's shortest round-trip text (`1022.5`, `1e-05`).
  public init(_ value: Double) {
    precondition(value.isFinite, "JSON has no NaN or infinity")
    if value.rounded() == value, abs(value) < 1e15 {
      text = String(Int64(value))
    } else {
      text = value.description
    }
  }

  public var doubleValue: Double { Double(text) ?? .nan }

  /// The value as an `Int` when it is integral (`5`, `5.0`), nil otherwise.
  public var intValue: Int? {
    if let i = Int(text) { return i }
    let d = doubleValue
    guard d.isFinite, d.rounded() == d, abs(d) < 9.0e15 else { return nil }
    return Int(d)
  }

  public static func == (a: Self, b: Self) -> Bool { a.text == b.text || a.doubleValue == b.doubleValue }
  public func hash(into hasher: inout Hasher) { hasher.combine(doubleValue) }
  public var description: String { text }
}

/// A JSON object that keeps its keys in order. Setting an existing key replaces its value in place; a new
/// key goes last.
public struct JSONObject: Hashable, Sendable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
  public private(set) var entries: [(key: String, value: JSONValue)] = []

  public init() {}
  public init(_ entries: [(String, JSONValue)]) { for (k, v) in entries { self[k] = v } }
  public init(dictionaryLiteral elements: (String, JSONValue)...) { self.init(elements) }

  public var keys: [String] { entries.map(\.key) }
  public var count: Int { entries.count }
  public var isEmpty: Bool { entries.isEmpty }

  public subscript(key: String) -> JSONValue? {
    get { entries.first { $0.key == key }?.value }
    set {
      let index = entries.firstIndex { $0.key == key }
      switch (index, newValue) {
      case (let i?, let v?): entries[i].value = v
      case (let i?, nil): entries.remove(at: i)
      case (nil, let v?): entries.append((key, v))
      case (nil, nil): break
      }
    }
  }

  public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> { entries.makeIterator() }

  /// Equal when both hold the same keys with equal values, in any order.
  public static func == (a: Self, b: Self) -> Bool {
    a.count == b.count && a.entries.allSatisfy { b[$0.key] == $0.value }
  }

  public func hash(into hasher: inout Hasher) {
    for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
      hasher.combine(key)
      hasher.combine(value)
    }
  }

  public var description: String { JSONWriter.text(.object(self)) }
}
