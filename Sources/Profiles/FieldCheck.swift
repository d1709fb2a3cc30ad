import BeaconCore

/// Checks a profile value against its `FieldSpec` — statically for literals, and again per device once a
/// template has been filled in — and converts it to the value the device is given.
public enum FieldCheck {
  /// Why a value is refused: the message and the allowed values, as shown to the operator.
  public struct Failure: Error, Sendable, Hashable {
    public var message: String
    public var allowed: String
  }

  /// Refuses an Eddystone URL whose encoding would not fit (set by the module that owns the encoder, so the
  /// profile engine and the scanner agree on one codec). Returns the reason, or nil when it fits.
  public typealias URLCheck = @Sendable (String) -> String?

  /// Checks a literal (already of the JSON type the kind wants).
  public static func check(_ value: FieldValue, _ spec: FieldSpec, urlCheck: URLCheck) -> Failure? {
    let allowed = spec.kind.allowed
    func fail(_ message: String) -> Failure { Failure(message: message, allowed: allowed) }
    switch (spec.kind, value) {
    case (_, .template): return nil
    case (.integer(let range), .integer(let i)):
      return range.contains(i) ? nil : fail("\(i) is out of range")
    case (.number(let range, _), .number(let d)):
      return range.contains(d) ? nil : fail("\(FieldSpec.Kind.plain(d)) is out of range")
    case (.number(let range, _), .integer(let i)):
      return range.contains(Double(i)) ? nil : fail("\(i) is out of range")
    case (.boolean, .boolean): return nil
    case (.text(let max, let format), .text(let s)):
      if format == .plain, s.utf8.count > max {
        return fail("\"\(s.echoed)\" is \(s.utf8.count) bytes long in UTF-8")
      }
      if s.count > max, format != .password, format != .plain {
        return fail("\"\(s.echoed)\" is \(s.count) characters long")
      }
      return formatFailure(s, format, urlCheck: urlCheck).map(fail)
    case (.choice(let names), .text(let s)):
      return names.contains(where: { $0.0 == s }) ? nil : fail("\"\(s.echoed)\" is not a known value")
    case (.flags(let names), .names(let list)):
      return namesFailure(list, names.map(\.0)).map(fail)
    case (.switches(let names), .names(let list)):
      return namesFailure(list, names.map(\.0)).map(fail)
    default:
      return fail("expected \(expectedType(spec.kind)), found \(value.typeName)")
    }
  }

  /// Turns a filled-in template into the kind's value and checks it.
  public static func resolve(_ text: String, _ spec: FieldSpec, urlCheck: URLCheck) -> Result<FieldValue, Failure> {
    let value: FieldValue
    switch spec.kind {
    case .integer:
      guard let i = Int(text.trimmingWhitespace) else {
        return .failure(Failure(message: "\"\(text.echoed)\" is not an integer", allowed: spec.kind.allowed))
      }
      value = .integer(i)
    case .number:
      guard let d = Double(text.trimmingWhitespace), d.isFinite else {
        return .failure(Failure(message: "\"\(text.echoed)\" is not a number", allowed: spec.kind.allowed))
      }
      value = .number(d)
    case .boolean:
      guard let b = Bool(text.trimmingWhitespace) else {
        return .failure(Failure(message: "\"\(text.echoed)\" is not true or false", allowed: spec.kind.allowed))
      }
      value = .boolean(b)
    case .text, .choice: value = .text(text)
    case .flags, .switches: value = .names(text.split(separator: ",").map { $0.trimmingWhitespace })
    }
    if let failure = check(value, spec, urlCheck: urlCheck) { return .failure(failure) }
    return .success(value)
  }

  static func expectedType(_ kind: FieldSpec.Kind) -> String {
    switch kind {
    case .integer: "an integer"
    case .number: "a number"
    case .boolean: "true or false"
    case .text: "a string"
    case .choice: "one of the names (a string)"
    case .flags, .switches: "an array of names"
    }
  }

  static func namesFailure(_ list: [String], _ names: [String]) -> String? {
    if let bad = list.first(where: { !names.contains($0) }) { return "\"\(bad.echoed)\" is not a known value" }
    if Set(list).count != list.count { return "a value is listed twice" }
    return nil
  }

  static func formatFailure(_ s: String, _ format: FieldSpec.TextFormat, urlCheck: URLCheck) -> String? {
    switch format {
    case .plain:
      guard let control = s.unicodeScalars.first(where: TerminalText.isControl) else { return nil }
      let code = String(control.value, radix: 16, uppercase: true)
      return
        "\"\(s.echoed)\" contains the control character U+\(String(repeating: "0", count: Swift.max(0, 4 - code.count)) + code)"
    case .uuid:
      // The 36-character form only; BeaconCore's parser checks the groups and ASCII hex digits.
      return s.utf8.count == 36 && BluetoothUUID(s) != nil ? nil : "\"\(s.echoed)\" is not a UUID"
    case .hex(let digits):
      let body = s.hasPrefix("0x") || s.hasPrefix("0X") ? s.dropFirst(2) : Substring(s)
      // `Hex.decode` skips separators, so a body of exactly `digits` bytes decoding to half as many has none.
      let exact = body.utf8.count == digits && Hex.decode(body)?.count == digits / 2
      return exact ? nil : "\"\(s.echoed)\" is not \(digits) hex digits"
    case .eddystoneURL:
      return urlCheck(s)
    case .password:
      return (8...16).contains(s.count) ? nil : "the password is \(s.count) characters long"
    }
  }
}

extension FieldValue {
  var typeName: String {
    switch self {
    case .integer: "an integer"
    case .number: "a number"
    case .boolean: "a boolean"
    case .text, .template: "a string"
    case .names: "an array"
    }
  }
}
