import BeaconCore
import Foundation

/// Runs one scan: feeds the central's reports into a `DiscoverySession` until `duration` has passed on
/// the reports' own time line (so an unpaced simulator finishes instantly) or on the wall clock (so a
/// quiet live adapter still stops), and renders as it goes.
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

  /// Scans; `emit` receives lines as the scan goes. Returns the text to print at the end (JSON array), if
  /// any. The final device records are available through `results` of the returned session.
  func run(central: any Central, emit: @escaping @Sendable (String) -> Void) async throws -> String? {
    let session = try await scan(central: central, emit: emit)
    switch mode {
    case .json: return try JSONOutput.string(session.results)
    case .liveTable, .lines, .jsonLines: return nil
    }
  }

  /// The scan itself; returns the finished session (every window closed).
  func scan(central: any Central, emit: @escaping @Sendable (String) -> Void) async throws -> DiscoverySession {
    let origin = ContinuousClock.now
    let deadline = origin + duration
    let parameters = ScanParameters(active: active)
    let settings = self.settings
    let mode = self.mode
    return try await withThrowingTaskGroup(of: DiscoverySession?.self) { group in
      group.addTask {
        var session = DiscoverySession(settings: settings, origin: origin)
        var table = LiveTable()
        do {
          for try await report in central.scan(parameters) {
            if report.timestamp >= deadline { break }
            let closed = session.ingest(report)
            Self.render(closed, mode: mode, emit: emit)
            if mode == .liveTable, let frame = table.redraw(session.snapshot, at: session.seconds(report.timestamp)) {
              emit(frame)
            }
          }
        } catch is CancellationError {
          // The wall-clock deadline fired first.
        } catch let error as LinkError {
          throw CLIFailure("scan on \(central.name) failed: \(error)")
        }
        let closed = session.finish(at: deadline)
        Self.render(closed, mode: mode, emit: emit)
        if mode == .liveTable { emit(table.final(session.results)) }
        return session
      }
      group.addTask {
        try? await Task.sleep(until: deadline, clock: .continuous)
        return nil
      }
      var result: DiscoverySession? = nil
      while let next = try await group.next() {
        if let session = next {
          result = session
          group.cancelAll()
        } else if result == nil {
          group.cancelAll()
        }
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
