import Foundation

/// Where the shared journal lives: a `postgresql://` (or `postgres://`) connection URL as libpq reads it,
/// from `--journal` or `BEACON_PROVISION_JOURNAL` (issue #18, "Build").
///
/// A password written into the URL is refused [I]: it would show in `ps`, shell history and every message
/// that names the journal. It comes from `PGPASSWORD` (libpq reads it), `~/.pgpass`, or
/// `--journal-password-file`. The refusal names the place the URL came from and prints the URL redacted.
/// `redacted` is what every message, report and log shows of the URL; it drops the user's password and any
/// `password=` query parameter, so even a URL that slipped through elsewhere is never printed with one.
public struct PostgresURL: Sendable, Hashable {
  /// The URL as given, for libpq.
  public let text: String

  /// The URL schemes libpq accepts.
  public static let schemes = ["postgresql://", "postgres://"]

  /// Whether a `--journal` value names a PostgreSQL server rather than a SQLite file.
  public static func isPostgres(_ text: String) -> Bool { schemes.contains { text.lowercased().hasPrefix($0) } }

  /// Reads `text`; `origin` names where it came from (`--journal`, `BEACON_PROVISION_JOURNAL`) for the error.
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
    self.text = text
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
  /// could differ (several `@`), more is hidden, never less: everything from the first `:` before the first
  /// `@` to the last `@`.
  public static func redact(_ text: String) -> String {
    var result = text
    var rest = result.startIndex
    if let scheme = result.range(of: "://") {
      rest = scheme.upperBound
      let authority = result[scheme.upperBound..<(result[scheme.upperBound...].firstIndex(of: "/") ?? result.endIndex)]
      if let firstAt = authority.firstIndex(of: "@"), let lastAt = authority.lastIndex(of: "@"),
        let colon = result[scheme.upperBound..<firstAt].firstIndex(of: ":")
      {
        let offset = result.distance(from: result.startIndex, to: colon)
        result.replaceSubrange(result.index(after: colon)..<lastAt, with: "***")
        rest = result.index(result.startIndex, offsetBy: offset)
      }
    }
    // Every `?`- or `&`-separated piece after the credentials that names a secret parameter, wherever the query
    // really starts (a `?` inside hidden credentials, a user name with a `?`): more hidden, never less. A
    // secret's value runs to the next `&` only, as libpq reads it: `password=a?b` is the password `a?b`.
    var redacted = String(result[..<rest])
    var piece = ""
    for character in result[rest...] {
      if character == "&" || (character == "?" && !Self.isSecretParameter(piece)) {
        redacted += Self.redactedParameter(piece) + String(character)
        piece = ""
      } else {
        piece.append(character)
      }
    }
    return redacted + Self.redactedParameter(piece)
  }

  /// `password=secret` (key percent-decoded, any case) → `password=***`; anything else as it is.
  static func redactedParameter(_ piece: String) -> String {
    guard let key = secretKey(piece) else { return piece }
    return "\(key)=***"
  }

  static func isSecretParameter(_ piece: String) -> Bool { secretKey(piece) != nil }

  /// The secret parameter `piece` sets (`password`, `sslpassword`), its key percent-decoded and lowercased.
  private static func secretKey(_ piece: String) -> String? {
    guard let equals = piece.firstIndex(of: "=") else { return nil }
    let key = String(piece[..<equals])
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
