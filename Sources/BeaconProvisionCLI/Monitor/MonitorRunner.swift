import BeaconCore
import Fleet
import Foundation
import Presence
import Profiles

/// The monitor's loop: the central's reports and, on a live or paced radio, a wall-clock tick every window
/// (so exits fire while the air is silent) go into one stream; `PresenceScan` turns them into events, which
/// `MonitorActions` carries out in order. Every `registryInterval` of scan time the devices heard meanwhile
/// go into the fleet registry (last seen, RSSI, battery history). It ends at `duration` — on the reports'
/// own time line for an unpaced simulator, else on the wall clock — or when its task is cancelled (Ctrl-C).
struct MonitorRunner: Sendable {
  var file: EventFile
  var inventory: Inventory?
  var window: Duration = .seconds(1)
  var duration: Duration?
  var active = true
  /// [I] 10 s: the registry's history keeps 16 points per device, so about the last 2½ minutes.
  var registryInterval: Duration = .seconds(10)
  /// The presence state an earlier run kept (`MonitorStateFile`), put back before the first report.
  var restored: PresenceState?
  /// When the fleet registry last saw each device, by address and by beacon identity (for
  /// `PresenceEngine.remember`).
  var lastSeen: [String: LastSeen] = [:]
  /// Keeps the presence state, every `registryInterval` of scan time and at the end.
  var keep: (@Sendable (PresenceState) async -> Void)?
  /// `--metrics`: the engine and report count handed over every `window` of scan time, events as they fire.
  var metrics: MonitorMetrics?
  /// SIGHUP: each element asks for `reload`, which gives the new events file and inventory, or nil when one
  /// of them is bad (it says why; the current ones stay).
  var reloads: AsyncStream<Void>?
  var reload: (@Sendable () async -> (EventFile, Inventory?)?)?

  enum Input: Sendable {
    case report(AdvertisingReport)
    case tick(ContinuousClock.Instant)
    case reload
    case end
  }

  /// Runs until the end; returns the number of events fired.
  func run(central: any Central, actions: MonitorActions, registry: RegistryRecorder?) async throws -> Int {
    let origin = ContinuousClock.now
    var engine = PresenceEngine(file: file, inventory: inventory)
    if let restored { engine.restore(restored) }
    engine.remember(lastSeen: lastSeen)
    let wallOrigin = Date()
    engine.watch(since: wallOrigin)
    var scan = PresenceScan(engine: engine, origin: origin, wallOrigin: wallOrigin, window: window)
    let stopAt = duration.map { origin + $0 }
    let (inputs, feed) = AsyncStream.makeStream(of: Input.self)
    let reports = central.scan(ScanParameters(active: active))
    let reader = Task {
      do {
        for try await report in reports {
          if let stopAt, report.timestamp >= stopAt { break }
          feed.yield(.report(report))
        }
      } catch {}
      feed.yield(.end)
    }
    let ticker: Task<Void, Never>? =
      central.scansInRealTime
      ? Task {
        while !Task.isCancelled {
          try? await Task.sleep(for: window)
          feed.yield(.tick(.now))
          if let stopAt, ContinuousClock.now >= stopAt { break }
        }
        feed.yield(.end)
      } : nil
    let hangups: Task<Void, Never>? = reloads.map { reloads in
      Task {
        for await _ in reloads { feed.yield(.reload) }
      }
    }
    defer {
      reader.cancel()
      ticker?.cancel()
      hangups?.cancel()
    }
    var fired = 0
    var reportCount = 0
    var nextPublish = origin
    var nextRecord = origin + registryInterval
    var last = origin
    await withTaskCancellationHandler {
      for await input in inputs {
        let events: [PresenceEvent]
        switch input {
        case .report(let report):
          events = scan.report(report)
          reportCount += 1
          last = max(last, report.timestamp)
        case .tick(let now):
          events = scan.advance(to: stopAt.map { min($0, now) } ?? now)
          last = max(last, now)
        case .reload:
          // The new files are read off this loop; reports meanwhile wait in the stream, none is lost.
          if let loaded = await reload?() {
            scan.reload(file: loaded.0, inventory: loaded.1)
            nextPublish = last
          }
          events = []
        case .end:
          events = []
        }
        fired += events.count
        metrics?.fired(events)
        await actions.perform(events)
        if let metrics, last >= nextPublish {
          nextPublish = last + window
          metrics.scanned(scan.engine, at: scan.date(last), reports: reportCount)
        }
        if last >= nextRecord {
          nextRecord = last + registryInterval
          await registry?.sightings(scan.takeRecords(), at: scan.date(last))
          await keep?(scan.engine.state)
        }
        if case .end = input { break }
        if let stopAt, last >= stopAt { break }
      }
    } onCancel: {
      feed.yield(.end)
    }
    // The end of the run: what happened up to it (an unpaced scan that ran out of reports early included).
    let end = central.scansInRealTime ? min(ContinuousClock.now, stopAt ?? .now) : (stopAt ?? last)
    let closing = scan.advance(to: end)
    fired += closing.count
    metrics?.fired(closing)
    await actions.perform(closing)
    metrics?.scanned(scan.engine, at: scan.date(end), reports: reportCount)
    metrics?.scanEnded()
    // Not in this (possibly cancelled: Ctrl-C) task, whose cancellation would abandon the database write.
    let records = scan.takeRecords()
    let at = scan.date(end)
    let state = scan.engine.state
    let keeper = keep
    await Task {
      await registry?.sightings(records, at: at)
      await keeper?(state)
    }.value
    return fired
  }
}
