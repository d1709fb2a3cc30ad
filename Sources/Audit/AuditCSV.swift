import Foundation

/// The report as CSV for spreadsheets: RFC 4180 (CRLF line ends, a header row, fields holding a comma,
/// quote or line break double-quoted with quotes doubled), one row per device in address order.
///
/// Text that came from a device or a profile (names, drift, errors) and begins with `=`, `+`, `-`, `@`, a tab
/// or a carriage return is prefixed with `'`, so a spreadsheet shows it rather than running it as a formula
/// (a beacon can advertise any name) [I: OWASP's advice on CSV injection]; numbers are left as they are.
/// `info_manager` is a blukii module's standing in the Info Manager (`registered (B10001)`), empty for other
/// devices or when resolve is not configured.
public enum AuditCSV {
  public static let columns = [
    "address", "name", "status", "heard", "last_seen", "rssi", "battery_percent", "battery_mv", "model",
    "hardware", "firmware", "profile", "tags", "flags", "drift_count", "drift", "error", "last_apply",
    "last_apply_outcome", "last_dfu", "last_dfu_outcome", "info_manager",
  ]

  public static func render(_ report: AuditReport) -> String {
    var lines = [columns.joined(separator: ",")]
    for d in report.devices {
      let fields: [String?] = [
        d.address, safe(d.name), d.status.rawValue, d.heard ? "yes" : "no", d.lastSeen.map(timestamp),
        d.rssi.map(String.init), d.battery?.percent.map(String.init), d.battery?.millivolts.map(String.init),
        safe(d.model), safe(d.hardwareVersion), safe(d.firmwareVersion), safe(d.profile), safe(d.tags.joined(separator: ";")),
        d.flags.map(\.rawValue).joined(separator: ";"), String(d.drift.count),
        safe(d.drift.map(describe).joined(separator: "; ")), safe(d.error), d.lastApply?.run, d.lastApply?.outcome,
        d.lastDFU?.run, d.lastDFU?.outcome, d.infoManager.map(\.text),
      ]
      lines.append(fields.map { field($0 ?? "") }.joined(separator: ","))
    }
    return lines.joined(separator: "\r\n") + "\r\n"
  }

  /// `slot 0 iBeacon.major: 100 → 7 (air)`: the wanted value first, then what the device has.
  public static func describe(_ drift: AuditDrift) -> String {
    "\(drift.scope) \(drift.key): wanted \(drift.expected), has \(drift.actual ?? "(none)") (\(drift.source.rawValue))"
  }

  static func timestamp(_ date: Date) -> String { date.formatted(.iso8601) }

  /// RFC 4180 §2.6–2.7.
  static func field(_ text: String) -> String {
    guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
    return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  static func safe(_ text: String?) -> String? {
    guard let text, let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first), Double(text) == nil
    else { return text }
    return "'" + text
  }
}
