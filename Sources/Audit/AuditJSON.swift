import Foundation

/// The report as JSON: the documented schema (`AuditReport.schemaName`, described in the README) — keys
/// sorted, times ISO-8601 in UTC, absent values left out.
public enum AuditJSON {
  public static func render(_ report: AuditReport) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    return String(decoding: try encoder.encode(report), as: UTF8.self) + "\n"
  }

  /// Reads a report back (tests, and tools built on the JSON).
  public static func parse(_ text: String) throws -> AuditReport {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return try decoder.decode(AuditReport.self, from: Data(text.utf8))
  }
}
