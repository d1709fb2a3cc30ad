/// A strict RFC 8259 JSON parser that records the line and column of every value and key. Pure: it takes
/// the file's bytes and returns a `SourceJSON` tree or a `SourceJSONSyntaxError` that says where it broke.
/// Nesting is capped so hostile input cannot exhaust the stack.
public struct SourceJSONParser {
  public static let maximumDepth = 256

  private let bytes: [UInt8]
  private var index = 0
  private var line = 1
  private var lineStart = 0

  public init(_ bytes: [UInt8]) { self.bytes = bytes }

  public static func parse(_ bytes: [UInt8]) throws(SourceJSONSyntaxError) -> SourceJSON {
    var parser = SourceJSONParser(bytes)
    if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3; parser.lineStart = 3 }
    let value = try parser.value(depth: 0)
    parser.skipWhitespace()
    guard parser.index == parser.bytes.count else { throw parser.error("unexpected text after the JSON value") }
    return value
  }

  private var position: SourcePosition {
    // Columns count scalars, not bytes: skip UTF-8 continuation bytes on this line.
    let column = bytes[lineStart..<index].reduce(1) { $1 & 0xC0 == 0x80 ? $0 : $0 + 1 }
    return SourcePosition(line: line, column: column, offset: index)
  }

  private func error(_ message: String) -> SourceJSONSyntaxError {
    SourceJSONSyntaxError(message: message, position: position)
  }

  private mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0D: index += 1
      case 0x0A:
        index += 1
        line += 1
        lineStart = index
      default: return
      }
    }
  }

  private mutating func value(depth: Int) throws(SourceJSONSyntaxError) -> SourceJSON {
    guard depth < Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
    skipWhitespace()
    let start = position
    guard index < bytes.count else { throw error("unexpected end of file: expected a value") }
    switch bytes[index] {
    case UInt8(ascii: "{"): return SourceJSON(kind: try object(depth: depth), position: start)
    case UInt8(ascii: "["): return SourceJSON(kind: try array(depth: depth), position: start)
    case UInt8(ascii: "\""): return SourceJSON(kind: .string(try string()), position: start)
    case UInt8(ascii: "t"): try literal("true"); return SourceJSON(kind: .bool(true), position: start)
    case UInt8(ascii: "f"): try literal("false"); return SourceJSON(kind: .bool(false), position: start)
    case UInt8(ascii: "n"): try literal("null"); return SourceJSON(kind: .null, position: start)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return SourceJSON(kind: try number(), position: start)
    default: throw error("unexpected character '\(Unicode.Scalar(bytes[index]))': expected a value")
    }
  }

  private mutating func literal(_ word: String) throws(SourceJSONSyntaxError) {
    let w = Array(word.utf8)
    guard bytes[index...].starts(with: w) else { throw error("invalid literal: expected '\(word)'") }
    index += w.count
  }

  private mutating func object(depth: Int) throws(SourceJSONSyntaxError) -> SourceJSON.Kind {
    index += 1
    var members: [SourceJSON.Member] = []
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
    while true {
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
        throw error("expected a quoted key (JSON has no comments or trailing commas)")
      }
      let keyPosition = position
      let key = try string()
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after key \"\(key)\"") }
      index += 1
      members.append(SourceJSON.Member(key: key, keyPosition: keyPosition, value: try value(depth: depth + 1)))
      skipWhitespace()
      guard index < bytes.count else { throw error("unexpected end of file: expected ',' or '}'") }
      if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
      if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
      throw error("expected ',' or '}' after the value of \"\(key)\"")
    }
  }

  private mutating func array(depth: Int) throws(SourceJSONSyntaxError) -> SourceJSON.Kind {
    index += 1
    var elements: [SourceJSON] = []
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
    while true {
      elements.append(try value(depth: depth + 1))
      skipWhitespace()
      guard index < bytes.count else { throw error("unexpected end of file: expected ',' or ']'") }
      if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
      if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
      throw error("expected ',' or ']' in array")
    }
  }

  private mutating func string() throws(SourceJSONSyntaxError) -> String {
    index += 1
    var scalars = String.UnicodeScalarView()
    var raw: [UInt8] = []
    func flush() { scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars); raw.removeAll() }
    while index < bytes.count {
      let b = bytes[index]
      switch b {
      case UInt8(ascii: "\""):
        index += 1
        flush()
        return String(scalars)
      case UInt8(ascii: "\\"):
        flush()
        index += 1
        guard index < bytes.count else { break }
        let e = bytes[index]
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
        case UInt8(ascii: "u"): scalars.append(try unicodeEscape())
        default: throw error("invalid escape '\\\(Unicode.Scalar(e))' in string")
        }
      case 0x00..<0x20:
        throw error("control character in string (write it as an escape)")
      default:
        raw.append(b)
        index += 1
      }
    }
    throw error("unterminated string")
  }

  private mutating func hex4() throws(SourceJSONSyntaxError) -> UInt32 {
    guard index + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
    else { throw error("invalid \\u escape: expected four hex digits") }
    index += 4
    return v
  }

  private mutating func unicodeEscape() throws(SourceJSONSyntaxError) -> Unicode.Scalar {
    let first = try hex4()
    if (0xD800..<0xDC00).contains(first) {
      guard bytes[index...].starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "u")]) else { throw error("unpaired surrogate in \\u escape") }
      index += 2
      let second = try hex4()
      guard (0xDC00..<0xE000).contains(second) else { throw error("unpaired surrogate in \\u escape") }
      return Unicode.Scalar(0x10000 + (first - 0xD800) << 10 + (second - 0xDC00))!
    }
    guard let scalar = Unicode.Scalar(first) else { throw error("unpaired surrogate in \\u escape") }
    return scalar
  }

  private mutating func number() throws(SourceJSONSyntaxError) -> SourceJSON.Kind {
    let start = index
    func digits() -> Int {
      let s = index
      while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
      return index - s
    }
    if bytes[index] == UInt8(ascii: "-") { index += 1 }
    let intStart = index
    guard digits() > 0 else { throw error("invalid number: expected a digit") }
    if bytes[intStart] == UInt8(ascii: "0"), index - intStart > 1 { throw error("invalid number: leading zero") }
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      guard digits() > 0 else { throw error("invalid number: expected a digit after '.'") }
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
      guard digits() > 0 else { throw error("invalid number: expected exponent digits") }
    }
    let text = String(decoding: bytes[start..<index], as: UTF8.self)
    guard let value = Double(text), value.isFinite else { throw error("number out of range: \(text)") }
    return .number(value, text: text)
  }
}

/// Where and why a file is not valid JSON.
public struct SourceJSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
  public var message: String
  public var position: SourcePosition
  public var description: String { "\(position): \(message)" }
}
