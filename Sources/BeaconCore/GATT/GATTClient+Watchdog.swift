extension GATTClient {
  /// The transaction timeout's one sleeping task per link (not one per request): it sleeps until the
  /// outstanding request's deadline, then looks again. A request answered in time leaves it asleep; when it
  /// wakes it finds the next request (and sleeps on to that one's deadline) or none (and ends; the next
  /// request starts it again). So a link's requests cost no timer of their own — at 16 links, a timer task
  /// started and cancelled per request was a pool job, a wake of libdispatch's timer thread and a
  /// cancellation job for every round trip (`perf`, `provision-bench apply-scaling`).
  func watchTransactions() async {
    while let current = outstandingDeadline() {
      if timer.elapsed() >= current.deadline {
        await transactionTimedOut(current.id)
        continue
      }
      do {
        try await timer.sleepUntil(current.deadline)
      } catch {
        break  // cancelled: the client has ended
      }
    }
    watchdogStopped()
  }
}
