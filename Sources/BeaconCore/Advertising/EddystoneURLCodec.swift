/// The Eddystone-URL compression (docs/protocols/beacon-formats.md §2 "URL"): a scheme prefix byte and an encoded body in
/// which bytes 0x00–0x0D stand for `.com/` … `.gov` and 0x21–0x7E are themselves. The decoder is
/// `EddystoneURLFrame.init(payload:)`; this is the encoder, also used by profile validation.
public enum EddystoneURLCodec {
  /// Scheme prefixes, by code 0x00–0x03.
  public static let schemes = ["http://www.", "https://www.", "http://", "https://"]

  /// Expansion texts, by code 0x00–0x0D. Codes 0x07–0x0D have no trailing '/' (the standard table; the
  /// KKM SDK's table differs, docs/protocols/kbeacon.md §10.7).
  public static let expansions = [
    ".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/",
    ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov",
  ]

  /// Most bytes the encoded body may have.
  public static let maximumEncodedLength = 17

  /// Expansion codes ordered longest text first, so greedy matching prefers `.com/` over `.com`.
  private static let expansionsLongestFirst: [(code: UInt8, text: [UInt8])] =
    expansions.enumerated().map { (UInt8($0.offset), Array($0.element.utf8)) }.sorted { $0.text.count > $1.text.count }

  /// Encodes `url` as (scheme code, body): the longest matching scheme prefix, then at each position the
  /// longest matching expansion, else the character itself. Throws when the URL has no supported scheme,
  /// contains a character outside graphic US-ASCII (0x21–0x7E), is empty after the scheme, or encodes to
  /// more than 17 bytes.
  public static func encode(_ url: String) throws(EddystoneURLEncodingError) -> (scheme: UInt8, body: [UInt8]) {
    let text = Array(url.utf8)
    var bestScheme: (code: UInt8, length: Int)? = nil
    for (code, prefix) in schemes.enumerated() where text.starts(with: prefix.utf8) {
      if prefix.utf8.count > (bestScheme?.length ?? 0) { bestScheme = (UInt8(code), prefix.utf8.count) }
    }
    guard let scheme = bestScheme else { throw .unsupportedScheme(url) }
    var i = scheme.length
    guard i < text.count else { throw .emptyURL }
    var body: [UInt8] = []
    while i < text.count {
      if let match = expansionsLongestFirst.first(where: { text[i...].starts(with: $0.text) }) {
        body.append(match.code)
        i += match.text.count
        continue
      }
      let c = text[i]
      guard (0x21...0x7E).contains(c) else {
        throw .invalidCharacter(offset: i, byte: c)
      }
      body.append(c)
      i += 1
    }
    guard body.count <= maximumEncodedLength else { throw .tooLong(encodedLength: body.count) }
    return (scheme.code, body)
  }

  /// Expands a scheme code and body back to text; throws `FrameDecodingError` for reserved bytes.
  public static func decode(scheme: UInt8, body: RawBytes) throws(FrameDecodingError) -> String {
    guard Int(scheme) < schemes.count else { throw .reservedURLScheme(scheme) }
    guard body.count <= maximumEncodedLength else { throw .urlTooLong(body.count) }
    // Validate and size first, then build the string in one allocation.
    let prefix = schemes[Int(scheme)]
    var length = prefix.utf8.count
    for (offset, b) in body.enumerated() {
      if Int(b) < expansions.count {
        length += expansions[Int(b)].utf8.count
      } else if (0x21...0x7E).contains(b) {
        length += 1
      } else {
        throw .reservedURLByte(b, offset: offset)
      }
    }
    return String(unsafeUninitializedCapacity: length) { buffer in
      var i = 0
      func put(_ text: String) {
        for c in text.utf8 {
          buffer[i] = c
          i += 1
        }
      }
      put(prefix)
      for b in body {
        if Int(b) < expansions.count {
          put(expansions[Int(b)])
        } else {
          buffer[i] = b
          i += 1
        }
      }
      return i
    }
  }
}

/// Why a URL cannot be carried in an Eddystone-URL frame.
public enum EddystoneURLEncodingError: Error, Sendable, Hashable, CustomStringConvertible {
  /// Not starting with `http://`, `https://` (optionally followed by `www.`).
  case unsupportedScheme(String)
  /// Nothing after the scheme prefix.
  case emptyURL
  /// A byte outside graphic US-ASCII (space, control, non-ASCII) at this UTF-8 offset.
  case invalidCharacter(offset: Int, byte: UInt8)
  /// The encoded body is longer than 17 bytes.
  case tooLong(encodedLength: Int)

  public var description: String {
    switch self {
    case .unsupportedScheme(let url): "'\(url)' does not start with http://, https://, http://www. or https://www."
    case .emptyURL: "the URL is empty after its scheme"
    case .invalidCharacter(let offset, let byte):
      "byte 0x\(hexByte(byte)) at offset \(offset) is not graphic US-ASCII (0x21–0x7E)"
    case .tooLong(let n): "the URL encodes to \(n) bytes; Eddystone-URL allows at most 17"
    }
  }
}
