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
    // Where the host part starts: after the credentials, so a `?` in a user name does not start the query.
    var hosts = result.startIndex
    if let scheme = result.range(of: "://") {
      hosts = scheme.upperBound
      let authority = result[scheme.upperBound..<(result[scheme.upperBound...].firstIndex(of: "/") ?? result.endIndex)]
      if let firstAt = authority.firstIndex(of: "@"), let lastAt = authority.lastIndex(of: "@") {
        if let colon = result[scheme.upperBound..<firstAt].firstIndex(of: ":") {
          let end = result.distance(from: result.startIndex, to: colon) + 1 + 4  // ":***@"
          result.replaceSubrange(result.index(after: colon)..<lastAt, with: "***")
          hosts = result.index(result.startIndex, offsetBy: end)
        } else {
          hosts = result.index(after: firstAt)
        }
      }
    }
    guard let query = result[hosts...].firstIndex(of: "?") else { return result }
    let parameters = result[result.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false).map { item in
      let key = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
      let decoded = (String(key).removingPercentEncoding ?? String(key)).lowercased()
      return secretParameters.contains(decoded) && item.contains("=") ? "\(decoded)=***" : String(item)
    }
    return String(result[...query]) + parameters.joined(separator: "&")
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
