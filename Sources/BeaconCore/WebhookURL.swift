/// Checks a webhook URL before anything is spooled for it (an unusable URL would be retried from the spool for ever): a URL that
/// can never be delivered to would otherwise be retried for ever, across restarts. Pure text work, like
/// `RedactedURL`, so the `--webhook` option, the events file and the spool all judge a URL the same way.
///
/// Accepted [I]: `http://` or `https://` (any case), a host of letters, digits, `-`, `.` and `_` or a
/// bracketed IPv6 address, an optional port 1…65535, then any path and query without spaces or control
/// characters. Refused: a user or password (`https://user:pw@host/`), because the URL is stored in the spool
/// with every event — credentials go in a header instead (`monitor --webhook-header-file`).
public enum WebhookURL {
  /// Why `url` cannot be a webhook, or nil when it can. The reason names the URL redacted.
  public static func problem(_ url: String) -> String? {
    // Not shown: the shared control-character escaping is another piece of work, and a raw CR/LF must not reach
    // the terminal.
    if url.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) {
      return "the URL contains a control character (CR, LF, tab…)"
    }
    let shown = RedactedURL(url).description
    let lower = url.lowercased()
    guard let schemeEnd = lower.hasPrefix("http://") ? 7 : lower.hasPrefix("https://") ? 8 : nil else {
      return "\"\(shown)\" is not an http or https URL"
    }
    if url.contains(" ") { return "\"\(shown)\" contains a space (write it %20)" }
    let rest = url.dropFirst(schemeEnd)
    let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    // Or a userinfo whose password holds `?` or `#`, which end the authority above early (`RedactedURL`).
    if authority.contains("@") || RedactedURL.userinfo(in: Substring(url)) != nil {
      return "\"\(shown)\" has a user or password in it, which would be stored in the spool with every event: "
        + "give the credential as a header instead (--webhook-header-file FILE with a line 'Authorization: …')"
    }
    var host = Substring(authority)
    var port: Substring?
    if host.hasPrefix("[") {
      guard let close = host.firstIndex(of: "]") else { return "\"\(shown)\": the IPv6 host has no closing ]" }
      let after = host[host.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { return "\"\(shown)\": unexpected text after the IPv6 host" }
        port = after.dropFirst()
      }
      host = host[host.index(after: host.startIndex)..<close]
      guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
        return "\"\(shown)\": \"[\(host)]\" is not an IPv6 address"
      }
    } else {
      if let colon = host.lastIndex(of: ":") {
        port = host[host.index(after: colon)...]
        host = host[..<colon]
      }
      guard !host.isEmpty else { return "\"\(shown)\" has no host" }
      guard host.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "." || $0 == "_" })
      else {
        return "\"\(shown)\": \"\(host)\" is not a host name (letters, digits, '-', '.', '_') or an IP address"
      }
    }
    if let port {
      guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(port),
        (1...65535).contains(n)
      else {
        return "\"\(shown)\": port \"\(port)\" is not a number from 1 to 65535"
      }
    }
    return nil
  }
}
