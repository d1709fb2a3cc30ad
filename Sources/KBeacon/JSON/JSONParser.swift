/// A strict JSON parser (RFC 8259) into `JSONValue`, keeping key order and number text. Nesting is limited
/// so hostile input cannot exhaust the stack; every failure is a `JSONParseError` with the byte offset.
public struct JSONParser {
  public struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    public var offset: Int
    public var reason: String
    public var description: String { "\(reason) at byte \(offset)" }
  }

  public static let maximumDepth = 32

  private let bytes: [UInt8]
  private var index = 0

  private init(_ bytes: [UInt8]) { self.bytes = bytes }

  public static func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
    var parser = JSONParser(Array(bytes))
    parser.skipSpace()
    let value = try parser.value(depth: 0)
    parser.skipSpace()
    guard parser.index == parser.bytes.count else { throw parser.error("trailing characters") }
    return value
  }

  public static func parse(_ text: String) throws(JSONParseError) -> JSONValue { try parse(Array(text.utf8)) }

  private func error(_ reason: String) -> JSONParseError { JSONParseError(offset: index, reason: reason) }

  private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

  private mutating func skipSpace() {
    while let c = peek, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { index += 1 }
  }

  private mutating func expect(_ literal: String, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
    let l = Array(literal.utf8)
    guard index + l.count <= bytes.count, Array(bytes[index..<index + l.count]) == l else { throw error("bad literal") }
    index += l.count
    return value
  }

  private mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
    guard depth < Self.maximumDepth else { throw error("nesting too deep") }
    guard let c = peek else { throw error("unexpected end") }
    switch c {
    case UInt8(ascii: "{"): return .object(try object(depth: depth))
    case UInt8(ascii: "["): return .array(try array(depth: depth))
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"): return try expect("true", .bool(true))
    case UInt8(ascii: "f"): return try expect("false", .bool(false))
    case UInt8(ascii: "n"): return try expect("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
    default: throw error("unexpected character")
    }
  }

  private mutating func object(depth: Int) throws(JSONParseError) -> JSONObject {
    index += 1
    var object = JSONObject()
    skipSpace()
    if peek == UInt8(ascii: "}") {
      index += 1
      return object
    }
    while true {
      skipSpace()
      guard peek == UInt8(ascii: "\"") else { throw error("expected a key") }
      let key = try string()
      skipSpace()
      guard peek == UInt8(ascii: ":") else { throw error("expected ':'") }
      index += 1
      skipSpace()
      guard object[key] == nil else { throw error("duplicate key '\(key)'") }
      object[key] = try value(depth: depth + 1)
      skipSpace()
      switch peek {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "}"):
        index += 1
        return object
      default: throw error("expected ',' or '}'")
      }
    }
  }

  private mutating func array(depth: Int) throws(JSONParseError) -> [JSONValue] {
    index += 1
    var items: [JSONValue] = []
    skipSpace()
    if peek == UInt8(ascii: "]") {
      index += 1
      return items
    }
    while true {
      skipSpace()
      items.append(try value(depth: depth + 1))
      skipSpace()
      switch peek {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "]"):
        index += 1
        return items
      default: throw error("expected ',' or ']'")
      }
    }
  }

  private mutating func digits() -> Int {
    let start = index
    while let c = peek, c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") { index += 1 }
    return index - start
  }

  private mutating func number() throws(JSONParseError) -> JSONNumber {
    let start = index
    if peek == UInt8(ascii: "-") { index += 1 }
    if peek == UInt8(ascii: "0") { index += 1 } else if digits() == 0 { throw error("bad number") }
    if peek == UInt8(ascii: ".") {
      index += 1
      guard digits() > 0 else { throw error("bad fraction") }
    }
    if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
      index += 1
      if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
      guard digits() > 0 else { throw error("bad exponent") }
    }
    return JSONNumber(text: String(decoding: bytes[start..<index], as: UTF8.self))
  }

  private mutating func hex4() throws(JSONParseError) -> UInt32 {
    guard index + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
    else { throw error("bad \\u escape") }
    index += 4
    return v
  }

  private mutating func string() throws(JSONParseError) -> String {
    index += 1
    var scalars = String.UnicodeScalarView()
    var run: [UInt8] = []
    func flush() {
      scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
      run.removeAll()
    }
    while true {
      guard let c = peek else { throw error("unterminated string") }
      index += 1
      switch c {
      case UInt8(ascii: "\""):
        flush()
        return String(scalars)
      case UInt8(ascii: "\\"):
        flush()
        guard let e = peek else { throw error("unterminated escape") }
        index += 1
        switch e {
        case UInt8(ascii: "\""): scalars.append("\"")
        case UInt8(ascii: "\\"): scalars.append("\\")
        case UInt8(ascii: "/"): scalars.append("/")
        case UInt8(ascii: "b"): scalars.append("\u{08}")
        case UInt8(ascii: "f"): scalars.append("\u{0C}")
        case UInt8(ascii: "n"): scalars.append("\n")
        case UInt8(ascii: "r"): scalars.append("\r")
        case UInt8(ascii: "t"): scalars.append("\t")
        case UInt8(ascii: "u"):
          var code = try hex4()
          if (0xD800..<0xDC00).contains(code), peek == UInt8(ascii: "\\"), index + 1 < bytes.count,
            bytes[index + 1] == UInt8(ascii: "u")
          {
            index += 2
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else { throw error("bad surrogate pair") }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
          }
          guard let scalar = Unicode.Scalar(code) else { throw error("bad \\u escape") }
          scalars.append(scalar)
        default: throw error("bad escape")
        }
      case 0..<0x20: throw error("control character in string")
      default: run.append(c)
      }
    }
  }
}
