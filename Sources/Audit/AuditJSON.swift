import Foundation
import JSON

/// The report as JSON: the documented schema (`AuditReport.schemaName`, described in the README) — keys
/// sorted, times ISO-8601 in UTC, absent values left out, in the JSON module's one style (`"key": value`).
public enum AuditJSON {
  public static func render(_ report: AuditReport) throws -> String {
    try JSONValueEncoder(sortedKeys: true, dates: .iso8601).pretty(report)
  }

  /// Reads a report back (tests, and tools built on the JSON); a problem is a `JSONDiagnostic` naming
  /// `file`, its line and column and JSON path.
  public static func parse(_ text: String, file: String = "audit report") throws(JSONDiagnostic) -> AuditReport {
    try JSONFileDecoder(file: file, dates: .iso8601).decode(AuditReport.self, from: Array(text.utf8))
  }
}
