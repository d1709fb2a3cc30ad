/// A URL made safe for messages and logs: the userinfo (`user:password@`) is removed, the value of every query
/// parameter whose name suggests a secret is replaced by `REDACTED`, and the fragment is dropped. Pure text
/// work on the string as given (no parsing library that could normalise or reject it), so even a malformed URL
/// yields something printable that holds no secret.
///
/// Choice [I]: a parameter is secret when its lower-cased name contains one of `secretMarkers` (token, key,
/// sig, secret, password, auth, credential, session, code) — a false positive only hides a harmless value.
public struct RedactedURL: Sendable, Hashable, CustomStringConvertible {
  /// The URL without secrets.
  public let description: String
  /// The secret texts that were removed (userinfo parts and query values), for scrubbing other messages
  /// (such as libcurl's error text) of the same secrets.
  public let secrets: [String]

  public static let secretMarkers = [
    "token", "key", "sig", "secret", "passw", "pwd", "auth", "credential", "session", "code",
  ]

  public init(_ url: String) {
    var secrets: [String] = []
    var rest = Substring(url)
    // The userinfo first, on the whole URL: a password may hold `?`, `#` or `/`, which would otherwise cut the
    // URL before its `@` and leave the password in the text (`userinfo(in:)`).
    if let (start, at) = Self.userinfo(in: rest) {
      secrets += rest[start..<at].split(separator: ":").map(String.init).filter { !$0.isEmpty }
      rest = Substring(String(rest[..<start]) + String(rest[rest.index(after: at)...]))
    }
    if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
    var query: Substring?
    if let question = rest.firstIndex(of: "?") {
      query = rest[rest.index(after: question)...]
      rest = rest[..<question]
    }
    var text = String(rest)
    if let query {
      let parameters = query.split(separator: "&", omittingEmptySubsequences: false).map { parameter -> String in
        guard let equals = parameter.firstIndex(of: "=") else { return String(parameter) }
        let name = parameter[..<equals].lowercased()
        let value = parameter[parameter.index(after: equals)...]
        guard Self.secretMarkers.contains(where: name.contains), !value.isEmpty else { return String(parameter) }
        secrets.append(String(value))
        return parameter[...equals] + "REDACTED"
      }
      text += "?" + parameters.joined(separator: "&")
    }
    description = text
    self.secrets = secrets
  }

  /// Where the userinfo (`user:password`) of `url` lies, from just after `://` to its `@`, if it has one.
  /// Choice [I], more hidden rather than less: there is one when the text after `://` has an `@`, the user name
  /// before it (up to a `:`) holds no `/`, `?` or `#`, and — when a `/` comes before that `@` — the text after
  /// the `:` up to the next `/` is not a port (all digits): a password may hold `/`, `?`, `#`, even `@`. It
  /// ends at the last `@` before the first `/` that follows the first `@`. So `https://host:8443?q=a@b` hides
  /// `host:8443?q=a`: a port followed by a query holding `@` reads as a password beginning with digits.
  static func userinfo(in url: Substring) -> (start: Substring.Index, at: Substring.Index)? {
    guard let scheme = url.firstRange(of: "://") else { return nil }
    let after = url[scheme.upperBound...]
    guard let firstAt = after.firstIndex(of: "@") else { return nil }
    let head = after[..<firstAt]
    // A bracketed IPv6 host's colons are not a user's.
    let hostStart = head.hasPrefix("[") ? head.firstIndex(of: "]") ?? head.startIndex : head.startIndex
    let colon = head[hostStart...].firstIndex(of: ":")
    guard !(colon.map { head[..<$0] } ?? head).contains(where: { "/?#".contains($0) }) else { return nil }
    if let colon, head.contains("/") {
      let portLike = after[after.index(after: colon)...].prefix { $0 != "/" }
      if !portLike.isEmpty, portLike.allSatisfy({ $0.isASCII && $0.isNumber }) { return nil }
    }
    let slash = after[firstAt...].firstIndex(of: "/") ?? after.endIndex
    guard let at = after[..<slash].lastIndex(of: "@") else { return nil }
    return (after.startIndex, at)
  }

  /// `message` with every secret of this URL replaced by `REDACTED`.
  public func scrub(_ message: String) -> String {
    secrets.filter { $0.count >= 3 }.reduce(message) { $0.replacingOccurrences(of: $1, with: "REDACTED") }
  }
}

extension String {
  fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
    var result = ""
    var rest = Substring(self)
    while let range = rest.firstRange(of: target) {
      result += rest[..<range.lowerBound] + replacement
      rest = rest[range.upperBound...]
    }
    return result + rest
  }
}
