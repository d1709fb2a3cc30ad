import Synchronization
import TestClocks
import Testing

/// The tests' condition signal ends a wait when its task is cancelled (as Swift Testing does past a time
/// limit): a wait that ignored cancellation kept a whole test process alive with nothing left to run.
@Suite(.timeLimit(.minutes(1))) struct StateSignalTests {
  @Test func aCancelledWaitReturnsThoughItsConditionNeverHolds() async {
    let signal = StateSignal()
    let waiting = Task { await signal.wait { false } }
    for _ in 0..<100 { await Task.yield() }
    waiting.cancel()
    await waiting.value
    #expect(waiting.isCancelled)
  }

  @Test func aWaitCancelledBeforeItStartsReturnsAtOnce() async {
    let signal = StateSignal()
    let waiting = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      await signal.wait { false }
    }
    await waiting.value
  }

  @Test func aChangeStillWakesTheWaitsWhoseConditionHolds() async {
    let signal = StateSignal()
    let value = Mutex(0)
    let waiting = Task { await signal.wait { value.withLock { $0 } >= 2 } }
    value.withLock { $0 = 1 }
    signal.changed()
    value.withLock { $0 = 2 }
    signal.changed()
    await waiting.value
    #expect(value.withLock { $0 } == 2)
  }
}
