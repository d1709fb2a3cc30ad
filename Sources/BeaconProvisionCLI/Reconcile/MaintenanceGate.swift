import CampaignPipeline
import Foundation
import Synchronization

/// `reconcile --maintenance-window` inside a firmware pass: asked before each device's turn
/// (`Campaign.Options.mayStart`), so a window that closes mid-pass starts no more transfers while the ones under
/// way finish. It remembers whether it turned a device away, so the devices it left pending are reported
/// `skipped-maintenance` (still due, for the next window) and told apart from those a stop signal left.
final class MaintenanceGate: Sendable {
  let window: DailySpan
  private let clock: @Sendable () -> Double
  private let closed = Mutex(false)

  init(window: DailySpan, clock: @escaping @Sendable () -> Double) {
    self.window = window
    self.clock = clock
  }

  /// Whether the window is open now; false is remembered (`turnedAway`).
  func mayStart() -> Bool {
    let open = window.contains(Date(timeIntervalSince1970: clock()))
    if !open { closed.withLock { $0 = true } }
    return open
  }

  /// Whether the window, closed, kept a device from starting.
  var turnedAway: Bool { closed.withLock { $0 } }
}
