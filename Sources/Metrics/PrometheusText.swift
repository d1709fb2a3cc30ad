/// Prometheus' text exposition format, version 0.0.4 (prometheus.io/docs/instrumenting/exposition_formats):
/// per family a `# HELP` line, a `# TYPE` line, then one `name{label="value",…} value` line per sample, each
/// line ending in `\n`. Served as `text/plain; version=0.0.4; charset=utf-8`.
public enum PrometheusText {
  /// The media type `/metrics` answers with.
  public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

  /// One family's lines.
  static func family(
    name: String, help: String, kind: String, samples: [(labels: [(String, String)], value: Double)]
  ) -> String {
    var text = "# HELP \(name) \(escapeHelp(help))\n# TYPE \(name) \(kind)\n"
    for sample in samples {
      text += name
      if !sample.labels.isEmpty {
        text += "{" + sample.labels.map { "\($0.0)=\"\(escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
      }
      text += " \(number(sample.value))\n"
    }
    return text
  }

  /// `[a-zA-Z_:][a-zA-Z0-9_:]*`, the format's metric name (label names are the same without colons).
  public static func isValidName(_ name: String) -> Bool {
    guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
    return name.utf8.allSatisfy { byte in
      (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        || byte == UInt8(ascii: ":")
    }
  }

  /// HELP text: backslash and line feed escaped.
  static func escapeHelp(_ text: String) -> String {
    text.replacingAll("\\", "\\\\").replacingAll("\n", "\\n")
  }

  /// A label value: backslash, double quote and line feed escaped.
  static func escapeLabel(_ text: String) -> String {
    escapeHelp(text).replacingAll("\"", "\\\"")
  }

  /// A sample value: whole numbers without a fraction (counts read as counts), `+Inf`, `-Inf`, `NaN`.
  static func number(_ value: Double) -> String {
    if value.isNaN { return "NaN" }
    if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return "\(value)"
  }
}

extension String {
  /// Every occurrence of `target` replaced (no Foundation in this module).
  fileprivate func replacingAll(_ target: Character, _ replacement: String) -> String {
    var out = ""
    for character in self { if character == target { out += replacement } else { out.append(character) } }
    return out
  }
}
