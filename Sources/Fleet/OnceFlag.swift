import Synchronization

/// Says yes once: `take()` is true the first time it is called, from any thread, and false after — a failure
/// warned about once per recorder (`RegistryRecorder`), a test hook that stops its process once
/// (`SimulatorPauseHook`).
public final class OnceFlag: Sendable {
  private let taken = Mutex(false)

  public init() {}

  /// True the first time only.
  public func take() -> Bool {
    taken.withLock { done in
      defer { done = true }
      return !done
    }
  }
}
