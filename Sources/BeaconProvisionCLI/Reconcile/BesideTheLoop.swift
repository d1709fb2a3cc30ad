import Synchronization

/// Best-effort work that runs beside `reconcile`'s loop, one at a time: the fleet registry's sightings of each
/// window. The registry is a record, not the loop's work (`RegistryRecorder`), and with a shared journal it is
/// the PostgreSQL server: a server that stopped answering made each window's write wait out its connection
/// attempts, so a stop took about 45 s to be seen. Here the loop only starts the write; when the last one is
/// still running, this window's sightings are not recorded [I: the next window's are, once the server
/// answers again; a sighting is overwritten by the next anyway]. Each write carries the time its window
/// ended. At a stop the write in progress gets a few seconds to finish (`wait(atMost:)`): a server that answers
/// commits it, one that does not is not waited out (it sees a dropped connection, and a transaction it did not
/// commit is not applied) [I: 3 s, `ReconcileLoop`]. Ending the process in the middle of a write also made
/// LeakSanitizer report the objects that write held as lost. `--once` waits for it (`wait`), so a cron pass is
/// recorded.
final class BesideTheLoop: Sendable {
  private let busy = Atomic(false)
  /// Writes started and skipped, for the tests.
  private let counts = Mutex((started: 0, skipped: 0))
  private let current = Mutex<Task<Void, Never>?>(nil)

  /// Starts `body` in a task of its own unless the last one is still running; returns whether it started.
  @discardableResult
  func start(_ body: @escaping @Sendable () async -> Void) -> Bool {
    guard busy.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
      counts.withLock { $0.skipped += 1 }
      return false
    }
    counts.withLock { $0.started += 1 }
    let task = Task {
      await body()
      self.busy.store(false, ordering: .releasing)
    }
    current.withLock { $0 = task }
    return true
  }

  /// Waits for the write in progress, if any (`reconcile --once` before it exits).
  func wait() async {
    let task = current.withLock { $0 }
    await task?.value
  }

  /// Waits for the write in progress for at most `seconds` (a stop); returns whether none is left running.
  @discardableResult
  func wait(atMost seconds: Double) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while busy.load(ordering: .acquiring) {
      guard ContinuousClock.now < deadline else { return false }
      try? await Task.sleep(for: .milliseconds(20))
    }
    return true
  }

  var started: Int { counts.withLock { $0.started } }
  var skipped: Int { counts.withLock { $0.skipped } }
}
