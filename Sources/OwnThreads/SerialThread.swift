import Dispatch
import Synchronization

/// A dedicated thread that runs the jobs given to it one at a time, in order: a private serial
/// `DispatchQueue` for blocking work whose thread is its own, named in `top -H` and gdb, whatever libdispatch
/// decides about its workers (see `OwnThread`). The thread starts with the first job, so one that is never
/// given a job costs no thread (each link's send thread, which a link whose sends all go out at once never
/// needs). The thread ends after the jobs queued before `finish()`; a job given after that runs on a thread
/// of its own, so no caller waits for ever.
public final class SerialThread: Sendable {
  public let name: String
  /// Shared with the thread, which must not keep `self` alive (`deinit` ends it).
  private let shared = Shared()

  private final class Shared: Sendable {
    let queue = Mutex(Queue())
    /// One signal per job and one for `finish()`: the thread sleeps here while there is nothing to do.
    let wake = DispatchSemaphore(value: 0)
  }

  private struct Queue {
    var jobs: [@Sendable () -> Void] = []
    var finished = false
    var started = false
  }

  public init(name: String) {
    self.name = name
  }

  /// The thread: runs jobs as they are signalled, until `finish()` with none left.
  private static func serve(_ shared: Shared) {
    while true {
      shared.wake.wait()
      let (job, done) = shared.queue.withLock { queue -> ((@Sendable () -> Void)?, Bool) in
        queue.jobs.isEmpty ? (nil, queue.finished) : (queue.jobs.removeFirst(), false)
      }
      if let job { job() } else if done { return }
    }
  }

  /// Queues `job` (starting the thread with the first one); returns at once.
  public func async(_ job: @escaping @Sendable () -> Void) {
    let (queued, start) = shared.queue.withLock { queue -> (Bool, Bool) in
      guard !queue.finished else { return (false, false) }
      queue.jobs.append(job)
      defer { queue.started = true }
      return (true, !queue.started)
    }
    guard queued else { return OwnThread.start(name, job) }
    if start { OwnThread.start(name) { [shared] in Self.serve(shared) } }
    shared.wake.signal()
  }

  /// Runs `body` on the thread, after the jobs queued before it, and returns its result.
  public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      async { continuation.resume(with: Result { try body() }) }
    }
  }

  /// Whether the thread has been started (tests).
  var threadStarted: Bool { shared.queue.withLock { $0.started } }

  /// Lets the thread end once the jobs queued so far have run.
  public func finish() {
    shared.queue.withLock { $0.finished = true }
    shared.wake.signal()
  }

  deinit { finish() }
}
