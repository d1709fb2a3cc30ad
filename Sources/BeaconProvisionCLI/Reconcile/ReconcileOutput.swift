import Foundation

/// What `reconcile` reports: one line per action on standard error, and with `--jsonl` the same action as a
/// JSON object on standard output, one a line (`event`: converged, drift-seen, write-failed, backoff,
/// skipped-battery, skipped-budget, wrong-password, interrupted, profile-error, reloaded). Fields a line
/// does not need are left out; passwords never appear (changes are named by key, never by value).
struct ReconcileOutput: Sendable {
  var jsonl: Bool
  /// Where lines and JSON lines go (tests collect them).
  var line: @Sendable (String) -> Void = { text in FileHandle.standardError.write(Data((text + "\n").utf8)) }
  var json: @Sendable (String) -> Void = ScanCommand.writeLine

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
    guard jsonl else { return }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    if let data = try? encoder.encode(event) { json(String(decoding: data, as: UTF8.self)) }
  }

  static func timestamp() -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: Date())
  }
}
