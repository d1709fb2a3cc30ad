import Foundation

/// Where the shared journal lives: a `postgresql://` (or `postgres://`) connection URL as libpq reads it,
/// from `--journal` or `BEACON_PROVISION_JOURNAL`.
///
/// A password written into the URL is refused [I]: it would show in `ps`, shell history and every message
/// that names the journal. It comes from `PGPASSWORD` (libpq reads it), `~/.pgpass`, or
/// `--journal-password-file`. The refusal names the place the URL came from and prints the URL redacted.
/// `redacted` is what every message, report and log shows of the URL; it drops the user's password and any
/// `password=` query parameter, so even a URL that slipped through elsewhere is never printed with one.
public struct PostgresURL: Sendable, Hashable {
  /// The URL as given (its scheme in lower case), for libpq.
  public let text: String

  /// The URL schemes libpq accepts.
  public static let schemes = ["postgresql://", "postgres://"]

  /// Whether a `--journal` value names a PostgreSQL server rather than a SQLite file.
  /// Compared scalar by scalar, as libpq compares bytes: a combining mark after the `//` must not hide the
  /// scheme (Swift's `hasPrefix` compares whole characters, and `/` plus a combining mark is one).
  public static func isPostgres(_ text: String) -> Bool {
    schemes.contains { text.lowercased().unicodeScalars.starts(with: $0.unicodeScalars) }
  }

  /// Reads `text`; `origin` names where it came from (`--journal`, `BEACON_PROVISION_JOURNAL`) for the error.
  ///
  /// The scheme is kept in lower case: RFC 3986 §3.1 makes schemes case-insensitive, but libpq compares
  /// them case-sensitively (fe-connect.c, `uri_prefix_length`) and reads `POSTGRESQL://db/x` as the name of a
  /// database on the local socket [I: normalised rather than refused — the operator's
  /// meaning is plain].
  public init(_ text: String, origin: String) throws {
    guard Self.isPostgres(text) else {
      throw PostgresURLError(
        origin: origin, shown: Self.redact(text),
        reason: "expected a URL starting with \(Self.schemes.joined(separator: " or "))")
    }
    if Self.hasPassword(text) {
      throw PostgresURLError(
        origin: origin, shown: Self.redact(text),
        reason: "the URL carries a password; put it in PGPASSWORD, ~/.pgpass or --journal-password-file instead")
    }
    let scalars = text.unicodeScalars
    let scheme = Self.schemes.first { String(String.UnicodeScalarView(scalars.prefix($0.count))).lowercased() == $0 }
    self.text = scheme.map { $0 + String(String.UnicodeScalarView(scalars.dropFirst($0.count))) } ?? text
  }

  /// The URL with every password replaced by `***`.
  public var redacted: String { Self.redact(text) }

  /// Query parameters whose value is a secret: the password and the client key's passphrase.
  public static let secretParameters: Set<String> = ["password", "sslpassword"]

  /// `user:secret@` → `user:***@`, `password=secret` → `password=***` (and `sslpassword=`).
  ///
  /// Read as libpq reads a URI (fe-connect.c, `conninfo_uri_parse_options`): the credentials run to the
  /// first `@` before any `/` — a `?` does not end them, so in `postgresql://u:pw?x@h` the password is
  /// `pw?x` — and query keys are percent-decoded (`?pass%77ord=` is `password=`). Where libpq and a reader
  /// could differ (several `@`, a `/` in the password), more is hidden, never less: everything from the
  /// `:` after the user name to the last `@` before the query.
  public static func redact(_ text: String) -> String {
    guard isPostgres(text) else { return redactKeywordValues(text) }
    // Unicode scalars, not characters: libpq reads bytes, and a combining mark after a delimiter (`/`, `@`,
    // `?`, `=`) makes one Swift character of the two, which a character-wise search would not see (the fuzzer:
    // `postgresql://\u{347}…?pass%77ord=x` was shown unredacted).
    var scalars = Array(text.unicodeScalars)
    var rest = 0
    if let scheme = Self.end(of: "://", in: scalars) {
      rest = scheme
      let authorityEnd = scalars[scheme...].firstIndex(of: "/") ?? scalars.count
      let authority = scalars[scheme..<authorityEnd]
      if let firstAt = authority.firstIndex(of: "@"), let lastAt = authority.lastIndex(of: "@"),
        let colon = scalars[scheme..<firstAt].firstIndex(of: ":")
      {
        scalars.replaceSubrange((colon + 1)..<lastAt, with: "***".unicodeScalars)
        rest = colon
      } else if let colon = authority.firstIndex(of: ":"),
        !scalars[scheme..<colon].contains(where: { $0 == "?" || $0 == "#" || $0 == "&" }),
        case let port = authority[(colon + 1)...], port.isEmpty || !port.allSatisfy({ ("0"..."9").contains($0) }),
        case let queryEnd = scalars[authorityEnd...].firstIndex(of: "?") ?? scalars.count,
        let lastAt = scalars[authorityEnd..<queryEnd].lastIndex(of: "@")
      {
        // A password holding `/` (base64 does): libpq ends the credentials at that `/` and reads the password as
        // a host and port, which its error then shows. A plain `user:` before the first `/`, not followed by a
        // port, is taken to begin credentials that run to the last `@` before the query.
        scalars.replaceSubrange((colon + 1)..<lastAt, with: "***".unicodeScalars)
        rest = colon
      }
    }
    // Every `?`- or `&`-separated piece after the credentials that names a secret parameter, wherever the query
    // really starts (a `?` inside hidden credentials, a user name with a `?`): more hidden, never less. A
    // secret's value runs to the next `&` only, as libpq reads it: `password=a?b` is the password `a?b`.
    var redacted = String(String.UnicodeScalarView(scalars[..<rest]))
    var piece = String.UnicodeScalarView()
    for scalar in scalars[rest...] {
      if scalar == "&" || (scalar == "?" && !Self.isSecretParameter(String(piece))) {
        redacted += Self.redactedParameter(String(piece)) + String(scalar)
        piece = String.UnicodeScalarView()
      } else {
        piece.append(scalar)
      }
    }
    return redacted + Self.redactedParameter(String(piece))
  }

  /// The index just past the first occurrence of `needle` in `scalars`, nil if it does not occur.
  private static func end(of needle: String, in scalars: [Unicode.Scalar]) -> Int? {
    let pattern = Array(needle.unicodeScalars)
    guard scalars.count >= pattern.count else { return nil }
    for start in 0...(scalars.count - pattern.count)
    where scalars[start..<(start + pattern.count)].elementsEqual(pattern) {
      return start + pattern.count
    }
    return nil
  }

  /// A libpq keyword/value string (`host=db password=secret`, `password = 'a b'`), or any other text that is
  /// not a URL, with the value of every `password` and `sslpassword` keyword replaced by `***`.
  ///
  /// Read as libpq reads one (fe-connect.c, `conninfo_parse`): `keyword = value` with optional blanks around
  /// `=`; a value is either single-quoted (to the next quote not escaped by a backslash) or runs to the next
  /// blank, a backslash escaping the character after it. The keyword is matched in any case and anywhere,
  /// even inside another word: more hidden, never less (`--journal "host=… password=…"`
  /// must not be refused with the password in the message).
  static func redactKeywordValues(_ text: String) -> String {
    let characters = Array(text)
    let keyword = "password".map(String.init)
    var result = ""
    var index = 0
    while index < characters.count {
      guard characters[index...].prefix(keyword.count).map({ $0.lowercased() }) == keyword else {
        result.append(characters[index])
        index += 1
        continue
      }
      var cursor = index + keyword.count
      while cursor < characters.count, characters[cursor].isWhitespace { cursor += 1 }
      guard cursor < characters.count, characters[cursor] == "=" else {
        result += String(characters[index..<cursor])
        index = cursor
        continue
      }
      cursor += 1
      while cursor < characters.count, characters[cursor].isWhitespace { cursor += 1 }
      result += String(characters[index..<cursor]) + "***"
      index = valueEnd(characters, from: cursor)
    }
    return result
  }

  /// Where a keyword/value string's value that starts at `start` ends (`conninfo_parse`'s reading).
  private static func valueEnd(_ characters: [Character], from start: Int) -> Int {
    var cursor = start
    let quoted = cursor < characters.count && characters[cursor] == "'"
    if quoted { cursor += 1 }
    while cursor < characters.count {
      let character = characters[cursor]
      if character == "\\" {
        cursor += 2
        continue
      }
      if quoted ? character == "'" : character.isWhitespace { return quoted ? cursor + 1 : cursor }
      cursor += 1
    }
    return characters.count
  }

  /// `password=secret` (key percent-decoded, any case) → `password=***`; anything else as it is.
  static func redactedParameter(_ piece: String) -> String {
    guard let key = secretKey(piece) else { return piece }
    return "\(key)=***"
  }

  static func isSecretParameter(_ piece: String) -> Bool { secretKey(piece) != nil }

  /// The secret parameter `piece` sets (`password`, `sslpassword`), its key percent-decoded and lowercased.
  private static func secretKey(_ piece: String) -> String? {
    guard let equals = piece.unicodeScalars.firstIndex(of: "=") else { return nil }
    let key = String(piece.unicodeScalars[..<equals])
    let decoded = (key.removingPercentEncoding ?? key).lowercased()
    return secretParameters.contains(decoded) ? decoded : nil
  }

  static func hasPassword(_ text: String) -> Bool { redact(text) != text }
}

/// A `--journal` URL that cannot be used, with where it came from and why.
public struct PostgresURLError: Error, Sendable, Hashable, CustomStringConvertible {
  public var origin: String
  /// The URL, redacted.
  public var shown: String
  public var reason: String
  public var description: String { "\(origin) \(shown): \(reason)" }
}
