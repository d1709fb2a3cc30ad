import Fleet
import Foundation
import Presence

/// What the monitor does with each event that fires: a line on standard output — the event's
/// JSON with `--jsonl` or when its definition has a `jsonl` action, else one plain line — a spooled POST per
/// `webhook` action, and a process per `command` action with the event in its environment.
struct MonitorActions: Sendable {
  /// Every event as a JSON line (`--jsonl`).
  var jsonl: Bool
  /// This run's id: an event's idempotency key is `RUN-SEQUENCE`, unique across restarts.
  var runID: String
  var webhooks: WebhookDispatch?
  var write: @Sendable (String) -> Void
  var warn: @Sendable (String) -> Void

  func key(_ event: PresenceEvent) -> String { "\(runID)-\(event.sequence)" }

  /// Spools the batch's webhook deliveries first (one transaction), then prints and runs commands: an event
  /// shown on standard output is already safe in the spool, so a `kill -9` after its line loses nothing.
  func perform(_ events: [PresenceEvent]) async {
    let bodies = events.map { PresenceEventJSON.text($0, id: key($0)) }
    var deliveries: [WebhookDelivery.Item] = []
    for (event, body) in zip(events, bodies) {
      for case .webhook(let url) in event.actions {
        deliveries.append(
          WebhookDelivery.Item(url: url, idempotencyKey: key(event), orderKey: event.orderKey, body: body))
      }
    }
    if !deliveries.isEmpty {
      if let webhooks {
        await webhooks.send(deliveries)
      } else {
        warn("no webhook spool: \(deliveries.count) deliveries lost")
      }
    }
    for (event, body) in zip(events, bodies) {
      write(jsonl || event.actions.contains(.jsonl) ? body : Self.plain(event))
      for case .command(let argv) in event.actions { run(argv, event, body: body) }
    }
  }

  /// `2026-03-02T08:00:05.000Z enter arrive AA:00:00:00:00:0A near -61 dBm`; a device tracked by its beacon
  /// identity shows it after the address it was last heard from.
  static func plain(_ event: PresenceEvent) -> String {
    var parts = [EventTime.text(event.at), event.kind.rawValue, event.name]
    if let device = event.device {
      parts.append(device.address)
      if let identity = device.identity { parts.append(identity) }
      if let name = device.name { parts.append(name) }
      parts.append(device.proximity.rawValue)
      if let rssi = device.smoothedRSSI { parts.append("\(Int(rssi.rounded())) dBm") }
    }
    if let tag = event.tag { parts.append("tag \(tag) \(event.session ?? "")") }
    if let previous = event.previous { parts.append("(was \(previous))") }
    return parts.joined(separator: " ")
  }

  /// Starts the program (no shell) with `BEACON_EVENT` (the JSON body), `BEACON_EVENT_NAME`,
  /// `BEACON_EVENT_KIND`, `BEACON_EVENT_ID` and, when there is one, `BEACON_ADDRESS` (and `BEACON_IDENTITY` for
  /// a device tracked by its beacon identity) or `BEACON_TAG` added to
  /// the monitor's environment. It is not waited for; a failure to start, or a non-zero exit, is a warning.
  func run(_ argv: [String], _ event: PresenceEvent, body: String) {
    var environment = ProcessInfo.processInfo.environment
    environment["BEACON_EVENT"] = body
    environment["BEACON_EVENT_NAME"] = event.name
    environment["BEACON_EVENT_KIND"] = event.kind.rawValue
    environment["BEACON_EVENT_ID"] = key(event)
    if let address = event.device?.address { environment["BEACON_ADDRESS"] = address }
    if let identity = event.device?.identity { environment["BEACON_IDENTITY"] = identity }
    if let tag = event.tag { environment["BEACON_TAG"] = tag }
    let warn = self.warn
    let name = event.name
    do {
      try EventProgram.start(argv, environment: environment) { ending in
        switch ending {
        case .exited(0): break
        case .exited(let status): warn("\(argv[0]) exited \(status) for event \(name)")
        case .signalled(let signal): warn("\(argv[0]) was killed by signal \(signal) for event \(name)")
        }
      }
    } catch {
      warn("cannot run \(argv[0]) for event \(name): \(error)")
    }
  }
}
