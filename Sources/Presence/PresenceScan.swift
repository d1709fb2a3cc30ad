import BeaconCore
import Foundation

/// Drives a `PresenceEngine` from a scan's reports, pure: reports are gathered in discovery windows
/// (`DiscoverySession`), and at each window boundary the window's device records become sightings and the
/// engine's timeouts run. Times come from the reports' own instants (and `advance(to:)` for moments with no
/// report, a silent radio), mapped to dates from `wallOrigin`, so an unpaced simulator's scripted time line
/// and a live adapter's clock drive it the same way.
///
/// [I] Windows are 1 s by default: exits and silences are seen within a second of their timeout, and a
/// device heard several times in a window counts once (its latest RSSI, frames merged).
public struct PresenceScan: Sendable {
  public internal(set) var engine: PresenceEngine
  public let origin: ContinuousClock.Instant
  public let wallOrigin: Date
  let window: Duration
  var session: DiscoverySession
  var boundary: ContinuousClock.Instant
  /// The newest record of each device heard since `takeRecords()` last ran (for the fleet registry).
  var records: [BluetoothAddress: DeviceRecord] = [:]

  public init(engine: PresenceEngine, origin: ContinuousClock.Instant, wallOrigin: Date, window: Duration = .seconds(1))
  {
    self.engine = engine
    self.origin = origin
    self.wallOrigin = wallOrigin
    self.window = window
    session = DiscoverySession(settings: DiscoverySettings(window: window), origin: origin)
    boundary = origin + window
  }

  /// The date of a scan instant.
  public func date(_ instant: ContinuousClock.Instant) -> Date {
    wallOrigin + session.seconds(instant)
  }

  /// One report: the windows that ended before it are closed first.
  public mutating func report(_ report: AdvertisingReport) -> [PresenceEvent] {
    var events = advance(to: report.timestamp)
    events += absorb(session.ingest(report))
    return events
  }

  /// Closes every window that ended by `instant`, each followed by the engine's timeouts at its end.
  public mutating func advance(to instant: ContinuousClock.Instant) -> [PresenceEvent] {
    var events: [PresenceEvent] = []
    while boundary <= instant {
      events += absorb(session.finish(at: boundary))
      events += engine.tick(at: date(boundary))
      boundary += window
    }
    return events
  }

  mutating func absorb(_ windows: [DiscoveryWindow]) -> [PresenceEvent] {
    var events: [PresenceEvent] = []
    for closed in windows {
      for record in closed.devices { records[record.address] = record }
      let identities = engine.namesIdentities
      events += engine.observe(
        closed.devices.map {
          PresenceSighting(record: $0, at: wallOrigin + $0.lastSeen, identities: identities)
        })
    }
    return events
  }

  /// The devices heard since the last call, newest record each, sorted by address.
  public mutating func takeRecords() -> [DeviceRecord] {
    defer { records = [:] }
    return records.values.sorted { $0.address < $1.address }
  }
}
