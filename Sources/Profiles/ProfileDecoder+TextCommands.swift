import BeaconCore
import JSON
import KBeacon

/// Decoding of the `commands` section (`TextCommand`), with the same diagnostics as the rest of
/// the profile: `site.json:7:19: $.commands[2].expect: invalid regular expression "(": …`.
///
/// Checked here, before any radio work: the section is a non-empty array of objects with known keys;
/// `query`, `expect` and `set` are non-empty strings with valid placeholders and no line break (the device
/// profile's terminator ends each command, so a CR or LF inside one would send two); a regular expression
/// compiles (its placeholders standing for a literal); the timeouts are 0.01…60 s. A profile manages either
/// KBeacons (`desired`) or text-stream devices (`commands`), so the two exclude each other, and the keys
/// that only mean something to a KBeacon (`auth`, `allowUnreachable`, `select.models`, `select.firmware`) are
/// refused next to `commands`.
extension ProfileDecoder {
  static let textTimeoutRange = 0.01...60.0

  mutating func commands(_ json: SourceJSON, _ path: JSONPath) -> [TextCommand] {
    guard case .array(let items) = json.kind else {
      report(json, path, "expected an array of commands, found \(json.typeName)")
      return []
    }
    if items.isEmpty { report(json, path, "no commands: give at least one {\"query\", \"expect\", \"set\"}") }
    return items.enumerated().compactMap { i, item in command(item, path.appending(i)) }
  }

  mutating func command(_ json: SourceJSON, _ path: JSONPath) -> TextCommand? {
    guard let m = members(json, path, known: ProfileKeys.command) else { return nil }
    var positions: [String: SourcePosition] = [:]
    var texts: [String: String] = [:]
    for key in ["query", "expect", "set"] {
      guard let value = m[key] else {
        report(json, path, "missing \"\(key)\"", allowed: "an object with \"query\", \"expect\" and \"set\"")
        continue
      }
      positions[key] = value.position
      guard let text = string(value, path.appending(key)) else { continue }
      if let problem = Self.commandTextProblem(text, key: key) {
        report(value, path.appending(key), problem)
        continue
      }
      texts[key] = text
    }
    var secret = false
    if let s = m["secret"] {
      if case .bool(let b) = s.kind {
        secret = b
      } else {
        report(s, path.appending("secret"), "expected true or false, found \(s.typeName)", allowed: "true, false")
      }
    }
    let first = seconds(m["timeoutFirst"], path.appending("timeoutFirst"))
    let next = seconds(m["timeoutNext"], path.appending("timeoutNext"))
    if let written = texts["expect"], case .regex(let pattern) = TextExpectation(written: written),
      let problem = TextExpectationMatcher.patternProblem(pattern)
    {
      report(m["expect"], path.appending("expect"), "invalid regular expression \"\(pattern.echoed)\": \(problem)")
      texts["expect"] = nil
    }
    guard let query = texts["query"], let written = texts["expect"], let set = texts["set"] else { return nil }
    let expect = TextExpectation(written: written)
    return TextCommand(
      query: query, expect: expect, set: set, secret: secret, timeoutFirst: first, timeoutNext: next, path: path,
      positions: positions)
  }

  /// Why a query, expect or set text cannot be used, if it cannot.
  static func commandTextProblem(_ text: String, key: String) -> String? {
    if text.isEmpty { return "empty \(key)" }
    if key != "expect", text.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) {
      return "a line break inside the command would send two commands (the device profile's terminator ends each)"
    }
    if let error = Template(text).syntaxError { return error }
    return nil
  }

  mutating func seconds(_ json: SourceJSON?, _ path: JSONPath) -> Double? {
    guard let json else { return nil }
    let range = Self.textTimeoutRange
    let allowed = "\(FieldSpec.Kind.plain(range.lowerBound))…\(FieldSpec.Kind.plain(range.upperBound)) seconds"
    guard case .number(let d, let text) = json.kind else {
      report(json, path, "expected a number of seconds, found \(json.typeName)", allowed: allowed)
      return nil
    }
    guard range.contains(d) else {
      report(json, path, "\(text.echoed) is out of range", allowed: allowed)
      return nil
    }
    return d
  }

  /// `commands` next to what only a KBeacon profile may have.
  mutating func checkCommandsProfile(_ m: [String: SourceJSON]) {
    let root = JSONPath.root
    if let d = m["desired"] {
      report(
        d, root.appending("desired"),
        "a profile configures KBeacons (\"desired\") or text-stream devices (\"commands\"), not both")
    }
    for key in ["auth", "allowUnreachable"] where m[key] != nil {
      report(m[key], root.appending(key), "\"\(key)\" is for KBeacons; a text-stream device has no password")
    }
    if let s = m["select"], case .object(let members) = s.kind {
      for member in members where member.key == "models" || member.key == "firmware" {
        report(
          SourceJSON(kind: .null, position: member.keyPosition), root.appending("select").appending(member.key),
          "select.\(member.key) is read from a KBeacon's configuration; a text-stream device has none",
          allowed: "addresses, name, minRSSI, tags")
      }
    }
  }
}
