import Dispatch
import OwnThreads
import Synchronization
import Testing

/// `SerialThread` and `OwnThread`: jobs in order on one thread, nothing lost around `finish()`, and blocked
/// jobs that do not hold Swift's tasks back (the reason the module exists: on Linux a blocked libdispatch
/// worker does).
@Suite struct SerialThreadTests {
  final class Log: Sendable {
    let entries = Mutex<[Int]>([])
    func append(_ n: Int) { entries.withLock { $0.append(n) } }
    var all: [Int] { entries.withLock { $0 } }
  }

  @Test func jobsRunInOrderAndAJobAfterFinishStillRuns() async throws {
    let thread = SerialThread(name: "test-serial")
    let log = Log()
    for n in 0..<100 { thread.async { log.append(n) } }
    let last = try await thread.run { log.all.count }
    #expect(last == 100)
    #expect(log.all == Array(0..<100))
    thread.finish()
    // After finish the job runs on a thread of its own rather than never.
    #expect(try await thread.run { 7 } == 7)
  }

  @Test func blockedJobsDoNotHoldTasksBack() async throws {
    // Sixteen threads each block until a task releases them. On libdispatch's workers (a DispatchQueue) the
    // task itself would wait for a free worker — about a second per blocked worker beyond the cores, so far
    // past each job's 10 s wait — and the jobs would time out; on threads of their own the task runs at once.
    let release = DispatchSemaphore(value: 0)
    let outcomes = Log()
    let threads = (0..<16).map { SerialThread(name: "test-blocked-\($0)") }
    let finished = AsyncStream.makeStream(of: Void.self)
    for thread in threads {
      thread.async {
        outcomes.append(release.wait(timeout: .now() + 10) == .success ? 1 : 0)
        finished.continuation.yield()
      }
    }
    await Task.detached { for _ in threads { release.signal() } }.value
    var count = 0
    for await _ in finished.stream {
      count += 1
      if count == threads.count { break }
    }
    #expect(outcomes.all == Array(repeating: 1, count: 16))
  }

  @Test func ownThreadReturnsItsResultAndError() async throws {
    #expect(await OwnThread.run("test-own") { 41 + 1 } == 42)
    struct Boom: Error {}
    await #expect(throws: Boom.self) { try await OwnThread.run("test-own-throws") { () throws -> Int in throw Boom() } }
  }
}
