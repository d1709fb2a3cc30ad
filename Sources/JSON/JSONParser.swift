import BeaconCore

/// The one strict RFC 8259 JSON parser. It builds a `SourceJSON` tree that records where every value and
/// key stood (line, column, byte offset), which profile diagnostics need; device answers and other wire
/// JSON take that tree without positions as a `JSONValue` (key order and number text kept). Pure: bytes
/// in, a tree or a `JSONSyntaxError` that says where the text broke. Nesting is capped so hostile input
/// cannot exhaust the stack, and positions are counted incrementally so a long one-line document stays
/// linear.
public struct JSONParser {
  /// What differs between the two kinds of JSON the tool reads.
  public struct Options: Sendable, Hashable {
    /// The deepest nesting accepted (the outermost value is depth 0).
    public var maximumDepth: Int
    /// Whether a leading UTF-8 byte order mark is skipped (editors on Windows write one).
    public var skipsByteOrderMark: Bool
    /// Whether a string that is not valid UTF-8 is an error (naming its place and JSON path) rather than
    /// decoded with U+FFFD for each bad sequence.
    public var rejectsInvalidUTF8 = false

    /// A device answer or other wire JSON (docs/protocols/kbeacon.md §4.2): nesting to 32, no byte order mark.
    /// [I] Invalid UTF-8 becomes U+FFFD: a device whose name holds broken bytes must stay readable.
    public static let wire = Options(maximumDepth: 32, skipsByteOrderMark: false)
    /// A file a person wrote (a profile, an inventory): nesting to 256, a byte order mark skipped, invalid
    /// UTF-8 refused (it once became U+FFFD silently and was written to devices).
    public static let file = Options(maximumDepth: 256, skipsByteOrderMark: true, rejectsInvalidUTF8: true)
  }

  private let bytes: [UInt8]
  private let options: Options
  private var index = 0
  private var line = 1
  private var lineStart = 0
  /// Where the current line's column count has reached (byte index and 1-based column).
  private var counted = (index: 0, column: 1)
  /// The keys and indexes leading to the value being parsed, for an invalid-UTF-8 error's JSON path.
  private var trail: [Step] = []

  private enum Step {
    case key(String)
    case index(Int)
  }

  private init(_ bytes: [UInt8], _ options: Options) {
    self.bytes = bytes
    self.options = options
  }

  /// Parses wire JSON into a `JSONValue`. A key given twice in one object is an error (a `JSONObject`
  /// holds each key once).
  public static func parse(_ bytes: some Collection<UInt8>) throws(JSONSyntaxError) -> JSONValue {
    try JSONValue(try parseWithPositions(Array(bytes), options: .wire))
  }

  public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue { try parse(Array(text.utf8)) }

  /// Parses into a tree that keeps positions and every member, duplicates included (the profile decoder
  /// names them at their JSON path).
  public static func parseWithPositions(_ bytes: [UInt8], options: Options = .file) throws(JSONSyntaxError)
    -> SourceJSON
  {
    var parser = JSONParser(bytes, options)
    if options.skipsByteOrderMark, bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
      parser.index = 3
      parser.lineStart = 3
      parser.counted.index = 3
    }
    let value = try parser.value(depth: 0)
    parser.skipWhitespace()
    guard parser.index == parser.bytes.count else { throw parser.error("unexpected text after the JSON value") }
    return value
  }

  private mutating func position() -> SourcePosition {
    // Columns count scalars, not bytes: UTF-8 continuation bytes do not start a column. Positions are
    // asked for in increasing order; should one ever step back, the line is counted afresh.
    if index < counted.index { counted = (lineStart, 1) }
    for b in bytes[counted.index..<index] where b & 0xC0 != 0x80 { counted.column += 1 }
    counted.index = index
    return SourcePosition(line: line, column: counted.column, offset: index)
  }

  private mutating func error(_ message: String) -> JSONSyntaxError {
    JSONSyntaxError(message: message, position: position())
  }

  private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

  private mutating func skipWhitespace() {
    while let b = peek {
      switch b {
      case 0x20, 0x09, 0x0D: index += 1
      case 0x0A:
        index += 1
        line += 1
        lineStart = index
        counted = (index, 1)
      default: return
      }
    }
  }

  private mutating func value(depth: Int) throws(JSONSyntaxError) -> SourceJSON {
    guard depth < options.maximumDepth else { throw error("nesting deeper than \(options.maximumDepth) levels") }
    skipWhitespace()
    let start = position()
    guard let b = peek else { throw error("unexpected end of file: expected a value") }
    let kind: SourceJSON.Kind
    switch b {
    case UInt8(ascii: "{"): kind = try object(depth: depth)
    case UInt8(ascii: "["): kind = try array(depth: depth)
    case UInt8(ascii: "\""): kind = .string(try string())
    case UInt8(ascii: "t"): kind = try literal("true", .bool(true))
    case UInt8(ascii: "f"): kind = try literal("false", .bool(false))
    case UInt8(ascii: "n"): kind = try literal("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): kind = try number(at: start)
    default: throw error("unexpected character '\(Unicode.Scalar(b))': expected a value")
    }
    return SourceJSON(kind: kind, position: start)
  }

  private mutating func literal(_ word: String, _ kind: SourceJSON.Kind) throws(JSONSyntaxError) -> SourceJSON.Kind {
    let w = Array(word.utf8)
    guard bytes[index...].starts(with: w) else { throw error("invalid literal: expected '\(word)'") }
    index += w.count
    return kind
  }

  private mutating func object(depth: Int) throws(JSONSyntaxError) -> SourceJSON.Kind {
    index += 1
    var members: [SourceJSON.Member] = []
    skipWhitespace()
    if peek == UInt8(ascii: "}") {
      index += 1
      return .object(members)
    }
    while true {
      skipWhitespace()
      guard peek == UInt8(ascii: "\"") else {
        throw error("expected a quoted key (JSON has no comments or trailing commas)")
      }
      let keyPosition = position()
      let key = try string()
      skipWhitespace()
      guard peek == UInt8(ascii: ":") else { throw error("expected ':' after key \"\(key.echoed)\"") }
      index += 1
      trail.append(.key(key))
      members.append(SourceJSON.Member(key: key, keyPosition: keyPosition, value: try value(depth: depth + 1)))
      trail.removeLast()
      skipWhitespace()
      switch peek {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "}"):
        index += 1
        return .object(members)
      case nil: throw error("unexpected end of file: expected ',' or '}'")
      default: throw error("expected ',' or '}' after the value of \"\(key.echoed)\"")
      }
    }
  }

  private mutating func array(depth: Int) throws(JSONSyntaxError) -> SourceJSON.Kind {
    index += 1
    var elements: [SourceJSON] = []
    skipWhitespace()
    if peek == UInt8(ascii: "]") {
      index += 1
      return .array(elements)
    }
    while true {
      trail.append(.index(elements.count))
      elements.append(try value(depth: depth + 1))
      trail.removeLast()
      skipWhitespace()
      switch peek {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "]"):
        index += 1
        return .array(elements)
      case nil: throw error("unexpected end of file: expected ',' or ']'")
      default: throw error("expected ',' or ']' in array")
      }
    }
  }

  private mutating func string() throws(JSONSyntaxError) -> String {
    index += 1
    var scalars = String.UnicodeScalarView()
    var raw: [UInt8] = []
    /// Appends the unescaped bytes read since the last escape, which end just before `index - 1`.
    func flush() throws(JSONSyntaxError) {
      defer { raw.removeAll() }
      guard options.rejectsInvalidUTF8, let bad = Self.firstInvalidUTF8(raw) else {
        scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
        return
      }
      index = index - 1 - raw.count + bad
      throw error(
        "invalid UTF-8 (byte 0x\(String(raw[bad], radix: 16, uppercase: true))) in the string at \(trailText); "
          + "save the file as UTF-8")
    }
    while let b = peek {
      index += 1
      switch b {
      case UInt8(ascii: "\""):
        try flush()
        return String(scalars)
      case UInt8(ascii: "\\"):
        try flush()
        guard let e = peek else { break }
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
        index -= 1
        throw error("control character in string (write it as an escape)")
      default: raw.append(b)
      }
    }
    throw error("unterminated string")
  }

  /// The JSON path of the value being parsed, e.g. `$.desired.slots[0].name`.
  private var trailText: String {
    "$"
      + trail.map { step in
        switch step {
        case .key(let k): "." + k
        case .index(let n): "[\(n)]"
        }
      }.joined()
  }

  /// Four hex digits. `Hex.decode` takes ASCII digits only and skips separators, so two bytes out means
  /// four digits in (`UInt32(_:radix:)` would also take a sign: `\u+041`).
  private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
    guard index + 4 <= bytes.count, let pair = Hex.decode(String(decoding: bytes[index..<index + 4], as: UTF8.self)),
      pair.count == 2
    else { throw error("invalid \\u escape: expected four hex digits") }
    index += 4
    return UInt32(pair[0]) << 8 | UInt32(pair[1])
  }

  /// The scalar of a `\uXXXX` escape (the `\u` already read), joining a UTF-16 surrogate pair.
  private mutating func unicodeEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
    var code = try hex4()
    if (0xD800..<0xDC00).contains(code) {
      guard bytes[index...].starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "u")]) else {
        throw error("unpaired surrogate in \\u escape")
      }
      index += 2
      let low = try hex4()
      guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate in \\u escape") }
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
    }
    guard let scalar = Unicode.Scalar(code) else { throw error("unpaired surrogate in \\u escape") }
    return scalar
  }

  private mutating func digits() -> Int {
    let start = index
    while let b = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) { index += 1 }
    return index - start
  }

  private mutating func number(at start: SourcePosition) throws(JSONSyntaxError) -> SourceJSON.Kind {
    if peek == UInt8(ascii: "-") { index += 1 }
    let integerStart = index
    guard digits() > 0 else { throw error("invalid number: expected a digit") }
    if bytes[integerStart] == UInt8(ascii: "0"), index - integerStart > 1 {
      throw error("invalid number: leading zero")
    }
    if peek == UInt8(ascii: ".") {
      index += 1
      guard digits() > 0 else { throw error("invalid number: expected a digit after '.'") }
    }
    if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
      index += 1
      if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
      guard digits() > 0 else { throw error("invalid number: expected exponent digits") }
    }
    let text = String(decoding: bytes[start.offset..<index], as: UTF8.self)
    // Any size is valid JSON: the text is kept exactly and the value is ±infinity beyond Double's range
    // (`Double(_:)` takes every text the grammar above accepts). Whoever reads it judges the range.
    return .number(Double(text) ?? .nan, text: text)
  }
}
