import BeaconCore
import Foundation

/// `monitor --webhook-header-file FILE`: extra HTTP headers sent with every webhook POST, such
/// as `Authorization: Bearer …`. Credentials live here, outside the spool, because a URL with a user or
/// password is refused (`WebhookURL`): the spool stores each event's URL in the journal, the header file's
/// contents are read at start and kept in memory only, and never logged.
///
/// Format [I]: one `Name: value` a line; blank lines and lines starting with `#` are ignored; a name is an
/// HTTP token (RFC 9110 §5.6.2), the value has no control characters. `Content-Type` and `Idempotency-Key`
/// are the monitor's own and cannot be replaced. Headers before any section go to every webhook URL; a line
/// `[https://receiver.example/hooks/]` starts a section whose headers go only to URLs that begin with that
/// text (the longest such prefix when several do), so each receiver gets its own credential:
///
/// ```
/// X-Site: 12
/// [https://a.example/hook]
/// Authorization: Bearer token-for-a
/// [https://b.example/]
/// Authorization: Bearer token-for-b
/// ```
enum WebhookHeaderFile {
  static let reserved: Set<String> = ["content-type", "idempotency-key", "content-length", "host"]

  static func load(_ path: String) throws -> WebhookHeaders {
    let data: Data
    do { data = try InputFile.read(path, limit: .smallText) } catch {
      throw CLIFailure("--webhook-header-file: \(error)")
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw CLIFailure("--webhook-header-file \(path): not UTF-8 text")
    }
    return try parse(text, file: path)
  }

  static func parse(_ text: String, file: String) throws -> WebhookHeaders {
    var result = WebhookHeaders()
    var section: String?
    let token = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    // "\r\n" is one Character in Swift: split on every newline, CRLF included.
    for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
      let at = "--webhook-header-file \(file):\(index + 1)"
      if trimmed.hasPrefix("[") {
        guard trimmed.hasSuffix("]"), trimmed.count > 2 else {
          throw CLIFailure("\(at): a section is [URL prefix], e.g. [https://receiver.example/]")
        }
        let prefix = String(trimmed.dropFirst().dropLast())
        let lower = prefix.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"),
          !prefix.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7f })
        else { throw CLIFailure("\(at): the section must name an http:// or https:// URL prefix without spaces") }
        guard result.sections[prefix] == nil else {
          throw CLIFailure("\(at): [\(RedactedURL(prefix))] is already a section of this file")
        }
        result.sections[prefix] = []
        section = prefix
        continue
      }
      // The value is never repeated in a message: it is usually a credential.
      guard let colon = line.firstIndex(of: ":") else { throw CLIFailure("\(at): expected 'Name: value'") }
      let name = String(line[..<colon])
      let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      guard !name.isEmpty, name.allSatisfy(token.contains) else {
        throw CLIFailure("\(at): the header name must be letters, digits and !#$%&'*+-.^_`|~ (no spaces)")
      }
      guard !reserved.contains(name.lowercased()) else {
        throw CLIFailure(
          "\(at): \(name) is set by the monitor itself (not allowed: \(reserved.sorted().joined(separator: ", ")))")
      }
      guard !value.isEmpty else { throw CLIFailure("\(at): \(name) has an empty value") }
      guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
        throw CLIFailure("\(at): the value of \(name) contains a control character")
      }
      if let section {
        result.sections[section, default: []].append((name, value))
      } else {
        result.common.append((name, value))
      }
    }
    return result
  }
}

/// The headers a header file gives: those for every URL, and those of each URL-prefix section.
struct WebhookHeaders: Sendable {
  var common: [(name: String, value: String)] = []
  var sections: [String: [(name: String, value: String)]] = [:]

  /// The headers sent to `url`: the common ones, then those of the longest section prefix it starts with.
  func headers(for url: String) -> [(name: String, value: String)] {
    let section = sections.keys.filter { url.hasPrefix($0) }.max { $0.count < $1.count }
    return common + (section.flatMap { sections[$0] } ?? [])
  }
}
