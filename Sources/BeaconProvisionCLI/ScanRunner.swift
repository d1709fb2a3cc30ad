import BeaconCore
import Foundation
import Synchronization

/// Runs one scan: feeds the central's reports into a `DiscoverySession` until `duration` has passed on
/// the reports' own time line (so an unpaced simulator finishes instantly) or on the wall clock (so a
/// quiet live adapter still stops), and renders as it goes.
///
/// A campaign that names its devices (`completeWhenSeen`) needs no more of the scan once it has heard every
/// one of them: the scan then ends `settle` after the last of them was first heard (time for its scan
/// response and a second report), or at `duration`, whichever comes first [I: 1 s settle].
struct ScanRunner: Sendable {
  enum Mode: Sendable {
    /// A table redrawn in place (terminal).
    case liveTable
    /// One plain line per device as each window closes.
    case lines
    /// The final records as one JSON array, returned at the end.
    case json
    /// One JSON object per device per window, as windows close.
    case jsonLines
  }

  var settings: DiscoverySettings
  var duration: Duration
  var active: Bool
  var mode: Mode
  /// The devices whose sighting completes the scan early (empty: always scan for `duration`).
  var completeWhenSeen: Set<BluetoothAddress> = []
  /// How long the scan goes on once every device of `completeWhenSeen` has been heard.
  var settle: Duration = .seconds(1)

  /// Scans; `emit` receives lines as the scan goes. Returns the text to print at the end (JSON array), if
  /// any. The final device records are available through `results` of the returned session.
  func run(central: any Central, emit: @escaping @Sendable (String) -> Void) async throws -> String? {
    try output(of: try await scan(central: central, emit: emit))
  }

  /// The text to print once `session` (from `scan`) has finished: the JSON array in `.json` mode, else nil.
  func output(of session: DiscoverySession) throws -> String? {
    switch mode {
    case .json: return try JSONOutput.string(session.results)
    case .liveTable, .lines, .jsonLines: return nil
    }
  }

  /// The scan itself; returns the finished session (every window closed).
  func scan(central: any Central, emit: @escaping @Sendable (String) -> Void) async throws -> DiscoverySession {
    let parameters = ScanParameters(active: active)
    let settings = self.settings
    let mode = self.mode
    let duration = self.duration
    let settle = self.settle
    let completeWhenSeen = self.completeWhenSeen
    // An unpaced simulator runs on its own time line only; everything else also stops on the wall clock.
    let wallClockDeadline = central.scansInRealTime
    // When the scan ends: set when it starts, moved earlier once every awaited device has been heard.
    let end = ScanEnd(.now + duration)
    return try await withThrowingTaskGroup(of: DiscoverySession?.self) { group in
      group.addTask {
        // The origin is taken right before the scan starts so the windows line up with the central's clock.
        let origin = ContinuousClock.now
        // This task alone moves the end; `end` tells the wall-clock task.
        var stopAt = origin + duration
        end.start(at: stopAt)
        let reports = central.scan(parameters)
        var session = DiscoverySession(settings: settings, origin: origin)
        var table = LiveTable(width: mode == .liveTable ? TerminalSize.columns() : nil)
        var awaited = completeWhenSeen
        // Each device's first report is logged at debug level (`-vv`): what a watcher of standard error
        // (a script, the interrupt test) waits for before acting on a scan that is under way.
        var heard = Set<BluetoothAddress>()
        let log = CLILog.logger("scan")
        do {
          for try await report in reports {
            if report.timestamp >= stopAt { break }
            if heard.insert(report.address).inserted { log.debug("heard", metadata: ["device": "\(report.address)"]) }
            if !awaited.isEmpty, awaited.remove(report.address) != nil, awaited.isEmpty {
              stopAt = Swift.min(stopAt, report.timestamp + settle)
              end.moveEarlier(to: stopAt)
            }
            let closed = session.ingest(report)
            Self.render(closed, mode: mode, emit: emit)
            let now = session.seconds(report.timestamp)
            if mode == .liveTable, table.isDue(at: now) { emit(table.redraw(session.snapshot, at: now)) }
          }
        } catch is CancellationError {
          // The wall-clock deadline fired first.
        } catch let failure as CLIFailure {
          throw failure
        } catch {
          throw CLIFailure("scan on \(central.name) failed: \(error)")
        }
        let closed = session.finish(at: stopAt)
        Self.render(closed, mode: mode, emit: emit)
        if mode == .liveTable { emit(table.final(session.results)) }
        return session
      }
      if wallClockDeadline {
        group.addTask {
          // Sleeps in short steps so that an end moved earlier is noticed.
          while case let remaining = end.instant - .now, remaining > .zero {
            try? await Task.sleep(for: Swift.min(remaining, .milliseconds(100)))
            if Task.isCancelled { break }
          }
          return nil
        }
      }
      var result: DiscoverySession? = nil
      // Whichever finishes first (the scan, or the wall-clock deadline) ends the other.
      while let next = try await group.next() {
        result = result ?? next
        group.cancelAll()
      }
      return result!
    }
  }

  private static func render(_ windows: [DiscoveryWindow], mode: Mode, emit: @Sendable (String) -> Void) {
    for window in windows {
      switch mode {
      case .jsonLines:
        for device in window.devices {
          let line = WindowedDevice(window: window.index, start: window.start, end: window.end, device: device)
          if let text = try? JSONOutput.string(line, pretty: false) { emit(text) }
        }
      case .lines:
        for device in window.devices { emit(DeviceLine.plain(device, window: window.index)) }
      case .liveTable, .json:
        break
      }
    }
  }
}

/// One `--jsonl` line: a device record and the window it belongs to (seconds since the scan started).
struct WindowedDevice: Encodable {
  var window: Int
  var start: Double
  var end: Double
  var device: DeviceRecord
}

/// The terminal's width (`TIOCGWINSZ` on standard output), nil when it is not a terminal.
enum TerminalSize {
  static func columns() -> Int? {
    var size = winsize()
    guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
    return Int(size.ws_col)
  }
}

/// When a scan ends, shared by the task reading reports (which may move it earlier) and the wall-clock task.
final class ScanEnd: Sendable {
  private let value: Mutex<ContinuousClock.Instant>

  init(_ instant: ContinuousClock.Instant) { value = Mutex(instant) }

  var instant: ContinuousClock.Instant { value.withLock { $0 } }

  /// Sets the end once the scan has started (the scan's own origin plus its duration).
  func start(at instant: ContinuousClock.Instant) { value.withLock { $0 = instant } }

  func moveEarlier(to instant: ContinuousClock.Instant) { value.withLock { $0 = Swift.min($0, instant) } }
}
