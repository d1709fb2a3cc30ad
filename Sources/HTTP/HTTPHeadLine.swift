/// One line of a response head, as libcurl's header callback hands it over: the status line of a response
/// (RFC 9112 §4, `HTTP/1.1 206 Partial Content`; libcurl gives HTTP/2 and HTTP/3 heads the same shape) or a
/// field line (§5, `Name: value`). Server input, so it is parsed without trusting it: bytes that are not
/// UTF-8 are replaced, a status that is not a three-digit number reads as 0, and a line that is neither a
/// status line nor has a colon is ignored (the blank line that ends a head, an obsolete folded line).
///
/// Choice [I]: an obsolete line fold (RFC 9112 §5.2, a line starting with a space) is ignored rather than
/// appended to the previous field, as libcurl itself does not unfold them for the callback and no value we
/// read (ETag, Last-Modified, Content-Range, Retry-After, Location) may be folded.
public enum HTTPHeadLine: Sendable, Hashable {
  /// A status line: a new response starts (a redirect's or a proxy's head came before it).
  case status(Int)
  /// A field line, name and value with the surrounding white space removed.
  case field(HTTPHeader)
  /// Anything else.
  case other

  public init(_ bytes: some Collection<UInt8>) {
    let raw = String(decoding: bytes, as: UTF8.self)
    if raw.first == " " || raw.first == "\t" {
      self = .other
      return
    }
    let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
    if line.hasPrefix("HTTP/") {
      let parts = line.split(separator: " ", omittingEmptySubsequences: true)
      let code = parts.count > 1 ? parts[1] : ""
      let valid = code.count == 3 && code.allSatisfy { $0.isASCII && $0.isNumber }
      self = .status(valid ? Int(code) ?? 0 : 0)
    } else if let colon = line.firstIndex(of: ":"), colon != line.startIndex {
      let name = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
      self = .field(HTTPHeader(name, line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
    } else {
      self = .other
    }
  }
}

/// The first byte position of a `Content-Range` value (RFC 9110 §14.4): `bytes 100-199/200` → 100. Nil for
/// any other unit, an unsatisfied range (`bytes */200`) or a position past `Int64`, so a resumed download
/// whose server answers with a range we cannot read is restarted, never appended at the wrong offset.
public enum HTTPContentRange {
  public static func start(_ value: String) -> Int64? {
    let text = value.trimmingCharacters(in: .whitespaces)
    guard text.lowercased().hasPrefix("bytes ") else { return nil }
    let digits = text.dropFirst(6).drop { $0 == " " }.prefix { $0.isASCII && $0.isNumber }
    return digits.isEmpty ? nil : Int64(digits)
  }
}
