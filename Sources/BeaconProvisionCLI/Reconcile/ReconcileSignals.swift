import Dispatch
import Glibc
import Synchronization

/// The signals a running `reconcile` answers: SIGINT and SIGTERM stop it cleanly — a scan window
/// in progress is cancelled, and a campaign in progress gets the interrupt `InterruptibleCampaign` expects
/// (the first lets links in flight finish their device and leaves the rest pending, the second abandons them:
/// status 130) — and SIGHUP asks for the profiles to be reloaded before the next pass. The handlers run on
/// GCD's queue and only set state under the mutex and yield.
final class ReconcileSignals: Sendable {
  struct State {
    var stops = 0
    var reload = false
    var cancelScan: (@Sendable () -> Void)?
    var campaign: AsyncStream<Void>.Continuation?
  }

  private let state = Mutex(State())
  private let sources: Mutex<[any DispatchSourceSignal]> = Mutex([])

  init() {
    // The sources are made inside the lock, so they never leave it (`DispatchSourceSignal` is not Sendable).
    sources.withLock { sources in
      sources = [SIGINT, SIGTERM, SIGHUP].map { number -> any DispatchSourceSignal in
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler { [weak self] in self?.received(number) }
        source.resume()
        return source
      }
    }
  }

  private func received(_ number: Int32) {
    state.withLock { state in
      if number == SIGHUP {
        state.reload = true
        return
      }
      state.stops += 1
      state.cancelScan?()
      state.campaign?.yield()
    }
  }

  var stopRequested: Bool { state.withLock { $0.stops > 0 } }

  /// Whether a reload was asked for since the last call.
  func takeReload() -> Bool {
    state.withLock { state in
      defer { state.reload = false }
      return state.reload
    }
  }

  /// How to cancel the scan window in progress, called by a stop signal (at once when one came already).
  func watchScan(cancel: @escaping @Sendable () -> Void) {
    let stopped = state.withLock { state in
      state.cancelScan = cancel
      return state.stops > 0
    }
    if stopped { cancel() }
  }

  /// The interrupts of the campaign about to start; nil when a stop was asked for already.
  func campaignInterrupts() -> AsyncStream<Void>? {
    let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
    let started = state.withLock { state -> Bool in
      guard state.stops == 0 else { return false }
      state.campaign = continuation
      return true
    }
    return started ? stream : nil
  }

  func campaignEnded() {
    state.withLock { state in
      state.campaign?.finish()
      state.campaign = nil
    }
  }

  /// Back to the default dispositions.
  func cancel() {
    sources.withLock { sources in
      for source in sources { source.cancel() }
      sources = []
    }
    for number in [SIGINT, SIGTERM, SIGHUP] { signal(number, SIG_DFL) }
  }
}
