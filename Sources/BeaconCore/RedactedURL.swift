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
    if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
    var query: Substring?
    if let question = rest.firstIndex(of: "?") {
      query = rest[rest.index(after: question)...]
      rest = rest[..<question]
    }
    var text = String(rest)
    if let schemeEnd = rest.firstRange(of: "://") {
      let authorityStart = schemeEnd.upperBound
      let authorityEnd = rest[authorityStart...].firstIndex(of: "/") ?? rest.endIndex
      let authority = rest[authorityStart..<authorityEnd]
      if let at = authority.lastIndex(of: "@") {
        secrets += authority[..<at].split(separator: ":").map(String.init).filter { !$0.isEmpty }
        text =
          String(rest[..<authorityStart]) + String(authority[authority.index(after: at)...])
          + String(rest[authorityEnd...])
      }
    }
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
