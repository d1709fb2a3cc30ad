import Foundation
import JSON

/// What `reconcile` reports: one line per action on standard error, and with `--jsonl` the same action as a
/// JSON object on standard output, one a line (`event`: converged, drift-seen, write-failed, backoff,
/// skipped-battery, skipped-budget, skipped-quiet, wrong-password, interrupted, profile-error, pass-error, reloaded; with a shared journal
/// converged-elsewhere, failed-elsewhere, reopened). Fields a line
/// does not need are left out; passwords never appear (changes are named by key, never by value).
struct ReconcileOutput: Sendable {
  var jsonl: Bool
  /// Where lines and JSON lines go (tests collect them).
  var line: @Sendable (String) -> Void = { text in FileHandle.standardError.write(Data((text + "\n").utf8)) }
  var json: @Sendable (String) -> Void = ScanCommand.writeLine
  /// Sees every event, with or without --jsonl (`ReconcileMetrics` counts from here).
  var observe: (@Sendable (Event) -> Void)?

  struct Event: Encodable, Sendable {
    var event: String
    var at: String = ReconcileOutput.timestamp()
    var address: String?
    var profile: String?
    var reason: String?
    var keys: [String]?
    var drift: [String]?
    var seconds: Double?
    var failures: Int?
    var battery: Int?
  }

  init(jsonl: Bool) { self.jsonl = jsonl }

  func emit(_ event: Event, _ text: String) {
    line("reconcile: " + text)
    observe?(event)
    guard jsonl else { return }
    if let text = try? JSONValueEncoder().text(event) { json(text) }
  }

  static func timestamp() -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: Date())
  }
}
