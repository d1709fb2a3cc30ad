import Foundation

/// Text made safe for an HTML document, in element content and in quoted attribute values alike: every
/// piece of text the report carries goes through `escape` (device names come from the air, so a beacon can
/// advertise `<script>` or `" onmouseover="`).
enum HTMLText {
  /// `&`, `<`, `>`, `"` and `'` as character references; NUL and the other C0 controls but tab, line feed
  /// and carriage return become U+FFFD (an HTML parser would refuse or drop them).
  static func escape(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&#39;"
      case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
      case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += "\u{FFFD}"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  /// A date as the report shows it, `2025-03-14 09:30 UTC` (`zone: false` leaves out ` UTC`, for a column
  /// whose header says it), with the exact instant for `datetime`.
  static func time(_ date: Date, seconds: Bool = false, zone: Bool = true) -> String {
    let iso = date.formatted(.iso8601)
    let shown = iso.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: "")
    let trimmed = seconds ? shown : String(shown.prefix(16))
    return "<time datetime=\"\(escape(iso))\">\(escape(trimmed))\(zone ? " UTC" : "")</time>"
  }

  /// `1 device`, `3 devices`.
  static func devices(_ n: Int) -> String { n == 1 ? "1 device" : "\(n) devices" }

  /// A number with at most two decimals, for SVG coordinates.
  static func number(_ d: Double) -> String {
    let rounded = (d * 100).rounded() / 100
    return Int(exactly: rounded).map(String.init) ?? String(format: "%.2f", rounded)
  }
}
