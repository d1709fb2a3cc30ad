import Foundation
import OwnThreads
import Testing

/// `BlockingIO`, the one wrapper for short blocking work (the command line's and provision-bench's): the
/// body runs on a thread of its own, named `blocking-io`, never on the awaiting task's thread, and its result
/// or error comes back.
@Suite(.timeLimit(.minutes(1))) struct BlockingIOTests {
  @Test func runsOnAThreadOfItsOwnAndReturnsItsResult() async throws {
    let caller = SerialThreadTests.currentThreadName()
    let name = try await BlockingIO.run { SerialThreadTests.currentThreadName() }
    #expect(name == BlockingIO.threadName)
    #expect(name != caller)
  }

  @Test func rethrowsTheBodysError() async {
    struct Boom: Error {}
    await #expect(throws: Boom.self) { try await BlockingIO.run { () throws -> Int in throw Boom() } }
  }
}
