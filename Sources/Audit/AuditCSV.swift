import BeaconCore
import Foundation

/// The report as CSV for spreadsheets: RFC 4180 (CRLF line ends, a header row, fields holding a comma,
/// quote or line break double-quoted with quotes doubled), one row per device in address order.
///
/// Text that came from a device or a profile (names, drift, errors) and begins with `=`, `+`, `-`, `@`, a tab
/// or a carriage return is prefixed with `'`, so a spreadsheet shows it rather than running it as a formula
/// (a beacon can advertise any name) [I: OWASP's advice on CSV injection]; numbers are left as they are.
/// Control characters in a field are shown as `\u{XX}` (`TerminalText`), so a CSV file shown with `cat` or a
/// report on standard output cannot move the cursor or retitle a terminal: in a file, line breaks
/// and tabs inside a field are kept (a quoted field holds them exactly, RFC 4180 §2.6); on a terminal
/// (`forTerminal`) they are escaped too, so each device stays one line. Everything else is byte for byte.
/// `info_manager` is a blukii module's standing in the Info Manager (`registered (B10001)`), empty for other
/// devices or when resolve is not configured.
public enum AuditCSV {
  public static let columns = [
    "address", "name", "status", "heard", "last_seen", "rssi", "battery_percent", "battery_mv", "model",
    "hardware", "firmware", "profile", "tags", "flags", "drift_count", "drift", "error", "last_apply",
    "last_apply_outcome", "last_dfu", "last_dfu_outcome", "info_manager",
  ]

  public static func render(_ report: AuditReport, forTerminal: Bool = false) -> String {
    var lines = [columns.joined(separator: ",")]
    for d in report.devices {
      let fields: [String?] = [
        d.address, safe(d.name), d.status.rawValue, d.heard ? "yes" : "no", d.lastSeen.map(timestamp),
        d.rssi.map(String.init), d.battery?.percent.map(String.init), d.battery?.millivolts.map(String.init),
        safe(d.model), safe(d.hardwareVersion), safe(d.firmwareVersion), safe(d.profile),
        safe(d.tags.joined(separator: ";")),
        d.flags.map(\.rawValue).joined(separator: ";"), String(d.drift.count),
        safe(d.drift.map(describe).joined(separator: "; ")), safe(d.error), d.lastApply?.run, d.lastApply?.outcome,
        d.lastDFU?.run, d.lastDFU?.outcome, d.infoManager.map(\.text),
      ]
      lines.append(fields.map { field(neutralised($0 ?? "", forTerminal: forTerminal)) }.joined(separator: ","))
    }
    return lines.joined(separator: "\r\n") + "\r\n"
  }

  /// `slot 0 iBeacon.major: 100 → 7 (air)`: the wanted value first, then what the device has.
  public static func describe(_ drift: AuditDrift) -> String {
    "\(drift.scope) \(drift.key): wanted \(drift.expected), has \(drift.actual ?? "(none)") (\(drift.source.rawValue))"
  }

  static func timestamp(_ date: Date) -> String { date.formatted(.iso8601) }

  /// `text` with its control characters escaped; a file's fields keep their tabs and line breaks.
  static func neutralised(_ text: String, forTerminal: Bool) -> String {
    if forTerminal { return TerminalText.escaped(text) }
    guard text.unicodeScalars.contains(where: { TerminalText.isControl($0) && !"\t\n\r".unicodeScalars.contains($0) })
    else {
      return text
    }
    // Split at the kept characters, escape the pieces, join again.
    var result = ""
    var piece = ""
    for scalar in text.unicodeScalars {
      if "\t\n\r".unicodeScalars.contains(scalar) {
        result += TerminalText.escaped(piece)
        result.unicodeScalars.append(scalar)
        piece = ""
      } else {
        piece.unicodeScalars.append(scalar)
      }
    }
    return result + TerminalText.escaped(piece)
  }

  /// RFC 4180 §2.6–2.7.
  static func field(_ text: String) -> String {
    guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
    return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  static func safe(_ text: String?) -> String? {
    guard let text, let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first),
      Double(text) == nil
    else { return text }
    return "'" + text
  }
}
