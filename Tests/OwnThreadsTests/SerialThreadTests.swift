import Dispatch
import Foundation
import Synchronization
import Testing

@testable import OwnThreads

/// `SerialThread` and `OwnThread`: jobs in order on one thread, nothing lost around `finish()`, and blocked
/// jobs that do not hold Swift's tasks back (the reason the module exists: on Linux a blocked libdispatch
/// worker does).
@Suite(.timeLimit(.minutes(2))) struct SerialThreadTests {
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

  @Test func blockedJobsEachHaveAThreadOfTheirOwn() async throws {
    // 48 jobs on 48 serial threads meet at a barrier: each blocks until all have arrived, so they pass only
    // if all 48 run at once. Threads of their own do within milliseconds; on `DispatchQueue.global()` only a
    // worker per core runs at first and one more is added about once a second for the blocked ones (16
    // blocked workers held a task back 9 s), so the barrier's 15 s would run out. (48 private serial queues
    // pass the barrier — libdispatch overcommits them — but not the thread-name check below.)
    let count = 48
    let arrived = Mutex(0)
    let everyone = DispatchSemaphore(value: 0)
    let outcomes = Log()
    let names = Mutex<Set<String>>([])
    let threads = (0..<count).map { SerialThread(name: "test-barrier-\($0)") }
    let (finished, done) = AsyncStream.makeStream(of: Void.self)
    for thread in threads {
      thread.async {
        names.withLock { _ = $0.insert(Self.currentThreadName()) }
        if arrived.withLock({
          $0 += 1
          return $0
        }) == count {
          for _ in 0..<count { everyone.signal() }
        }
        outcomes.append(everyone.wait(timeout: .now() + 15) == .success ? 1 : 0)
        done.yield()
      }
    }
    var seen = 0
    for await _ in finished {
      seen += 1
      if seen == count { break }
    }
    #expect(outcomes.all == Array(repeating: 1, count: count))
    // Each job ran on its SerialThread's own named thread, none on a libdispatch worker (com.apple.root.…).
    #expect(names.withLock { $0 } == Set((0..<count).map { String("test-barrier-\($0)".prefix(15)) }))
  }

  /// The thread starts with the first job: one given none (a link whose sends all went out at once) costs
  /// no thread, before or after `finish()`.
  @Test func aSerialThreadGivenNoJobStartsNoThread() async throws {
    let idle = SerialThread(name: "test-lazy")
    #expect(!idle.threadStarted)
    idle.finish()
    #expect(!idle.threadStarted)
    let busy = SerialThread(name: "test-lazy")
    #expect(try await busy.run { Self.currentThreadName() } == "test-lazy")
    #expect(busy.threadStarted)
    busy.finish()
  }

  /// The calling thread's name as the kernel keeps it (at most 15 bytes): /proc/thread-self/comm.
  static func currentThreadName() -> String {
    ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
      .trimmingCharacters(in: .newlines)
  }

  @Test func ownThreadReturnsItsResultAndError() async throws {
    #expect(await OwnThread.run("test-own") { 41 + 1 } == 42)
    struct Boom: Error {}
    await #expect(throws: Boom.self) { try await OwnThread.run("test-own-throws") { () throws -> Int in throw Boom() } }
  }
}
