import Fleet
import Foundation
import JSON
import Synchronization

/// What `reconcile` reports: one line per action on standard error, and with `--jsonl` the same action as a
/// JSON object on standard output, one a line (`event`: converged, drift-seen, write-failed, backoff,
/// skipped-battery, skipped-budget, skipped-quiet, wrong-password, interrupted, profile-error, pass-error, reloaded,
/// forgotten;
/// with --firmware firmware-updated, firmware-current, firmware-failed, firmware-error, skipped-maintenance; with a shared journal
/// converged-elsewhere, failed-elsewhere, reopened). Fields a line
/// does not need are left out; passwords never appear (changes are named by key, never by value).
///
/// `--webhook URL`: each event's JSON object is also POSTed to every URL through the monitor's spool and
/// delivery (`WebhookDispatch`: retried with backoff, in order per device, `Idempotency-Key` RUN-SEQUENCE),
/// spooled before its line is printed, so an event shown was already safe on disk.
struct ReconcileOutput: Sendable {
  var jsonl: Bool
  /// Where lines and JSON lines go (tests collect them).
  var line: @Sendable (String) -> Void = { text in FileHandle.standardError.write(Data((text + "\n").utf8)) }
  var json: @Sendable (String) -> Void = ScanCommand.writeLine
  /// Sees every event, with or without --jsonl (`ReconcileMetrics` counts from here).
  var observe: (@Sendable (Event) -> Void)?
  /// `--webhook`: where every event is POSTed, through the spool.
  var webhooks: (dispatch: WebhookDispatch, urls: [String])?
  /// This process's run id, the first half of each event's idempotency key (`MonitorCommand.runID`).
  let runID = MonitorCommand.runID()
  private let sequence = EventSequence()

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
    /// firmware-updated: the version the device ran, and the one it reads back now.
    var from: String?
    var to: String?
  }

  init(jsonl: Bool) { self.jsonl = jsonl }

  func emit(_ event: Event, _ text: String) async {
    let body = try? JSONValueEncoder().text(event)
    if let webhooks, let body {
      let key = "\(runID)-\(sequence.next())"
      await webhooks.dispatch.send(
        webhooks.urls.map { .init(url: $0, idempotencyKey: key, orderKey: event.address ?? "reconcile", body: body) })
    }
    line("reconcile: " + text)
    observe?(event)
    if jsonl, let body { json(body) }
  }

  /// Numbers the events of one process (1, 2, …).
  final class EventSequence: Sendable {
    private let last = Mutex(0)
    func next() -> Int {
      last.withLock {
        $0 += 1
        return $0
      }
    }
  }

  /// Now, as every event's `at` shows it: ISO 8601 in UTC with milliseconds (`2026-11-28T22:23:49.713Z`). One
  /// format style (a Sendable value) serves every event; a formatter was made per event before.
  static func timestamp() -> String { timestampStyle.format(Date()) }
  private static let timestampStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}
