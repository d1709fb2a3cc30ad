import BeaconCore
import Fleet
import Foundation

/// Reading the journal's rows back from their text form (`PostgresRows.records`).
extension PostgresJournal {
  static let runColumns =
    "id, kind, source, adapter, extract(epoch FROM started_at)::float8 AS started_at, "
    + "extract(epoch FROM finished_at)::float8 AS finished_at, status"
  static let deviceColumns =
    "run_id, address, state, step, attempts, writes, changes, detail, failure_kind, "
    + "extract(epoch FROM updated_at)::float8 AS updated_at, address_type, gateway"

  static func run(_ r: [String: String]) -> JournalRun {
    JournalRun(
      id: r["id"] ?? "", kind: r["kind"] ?? "", source: r["source"] ?? "", adapter: r["adapter"] ?? "",
      startedAt: date(r["started_at"]) ?? Date(timeIntervalSince1970: 0), finishedAt: date(r["finished_at"]),
      status: r["status"] ?? "")
  }

  /// A device row; nil for a state this tool does not know (a newer tool's row is refused by the schema
  /// version before it gets here).
  static func device(_ r: [String: String]) -> JournalDevice? {
    guard let state = r["state"].flatMap(DeviceState.init(rawValue:)) else { return nil }
    return JournalDevice(
      runId: r["run_id"] ?? "", address: r["address"] ?? "", state: state, step: r["step"],
      attempts: Int(r["attempts"] ?? "") ?? 0, writes: Int(r["writes"] ?? "") ?? 0, changes: r["changes"],
      detail: r["detail"], failureKind: r["failure_kind"].flatMap(FailureKind.init(rawValue:)),
      updatedAt: date(r["updated_at"]) ?? Date(timeIntervalSince1970: 0),
      addressType: r["address_type"].flatMap { $0 == "public" ? .public : $0 == "random" ? .random : nil })
  }

  static func date(_ text: String?) -> Date? { text.flatMap(Double.init).map(Date.init(timeIntervalSince1970:)) }
}
