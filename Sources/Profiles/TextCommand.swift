import JSON
import KBeacon

/// One item of a profile's `commands` section (provisioning a text-stream device by text commands): how to ask a
/// text-stream device for one setting, what its answer should be, and the command that sets it.
///
/// ```json
/// "commands": [
///   { "query": "AT+NAME?", "expect": "+NAME:{{name}}", "set": "AT+NAME={{name}}" },
///   { "query": "AT+INTERVAL?", "expect": "/\\+INTERVAL:(500|50[0-9])/", "set": "AT+INTERVAL=500",
///     "timeoutFirst": 3 }
/// ]
/// ```
///
/// `query`, `expect` and `set` are templates (`Template`: inventory columns and the built-ins). The
/// terminator is the device's text-stream profile's (docs/protocols/text-stream.md), so none is written here.
///
/// Choices [I] (each in one place, so easy to change):
/// - `expect` is plain text unless written between slashes (`/…/`), which makes it a regular expression
///   (Swift `Regex` syntax). Text must equal one line of the answer; a regular expression must match one
///   whole line (`TextExpectation.matches`). Values filled into a regular expression are escaped, so they
///   match literally.
/// - `set` is required: an item whose answer differs and that cannot be set would only be a check, which
///   `audit` is for.
/// - `secret: true` masks the set command and the answers of this item in plans, reports and the journal
///   (a PIN, a key); the query is shown.
/// - `timeoutFirst` / `timeoutNext` (seconds) replace the device profile's first-packet and inter-fragment
///   timeouts for this item's query and set, e.g. for a command the device takes long to answer.
public struct TextCommand: Sendable, Hashable {
  public var query: String
  public var expect: TextExpectation
  public var set: String
  public var secret: Bool
  public var timeoutFirst: Double?
  public var timeoutNext: Double?
  /// `$.commands[i]`.
  public var path: JSONPath
  /// Where each key's value is written, for per-device errors.
  public var positions: [String: SourcePosition]

  public init(
    query: String, expect: TextExpectation, set: String, secret: Bool = false, timeoutFirst: Double? = nil,
    timeoutNext: Double? = nil, path: JSONPath, positions: [String: SourcePosition] = [:]
  ) {
    self.query = query
    self.expect = expect
    self.set = set
    self.secret = secret
    self.timeoutFirst = timeoutFirst
    self.timeoutNext = timeoutNext
    self.path = path
    self.positions = positions
  }

  /// The templates of this item, with the key each is written under.
  public var templates: [(key: String, text: String)] {
    [("query", query), ("expect", expect.pattern), ("set", set)]
  }
}

/// What a query's answer should hold: one line equal to `text`, or one line matched whole by `regex`.
public enum TextExpectation: Sendable, Hashable, CustomStringConvertible {
  case text(String)
  case regex(String)

  /// The text as written (without the slashes of a regular expression).
  public var pattern: String {
    switch self {
    case .text(let s), .regex(let s): s
    }
  }

  /// `expect` as written in a profile: `/…/` (at least one character between) is a regular expression.
  public init(written: String) {
    if written.count >= 3, written.hasPrefix("/"), written.hasSuffix("/") {
      self = .regex(String(written.dropFirst().dropLast()))
    } else {
      self = .text(written)
    }
  }

  /// As written in a profile.
  public var description: String {
    switch self {
    case .text(let s): s
    case .regex(let s): "/\(s)/"
    }
  }
}
