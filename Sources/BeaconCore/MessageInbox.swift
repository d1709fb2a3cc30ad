/// Why `MessageInbox.receive(timeout:)` returned no message.
public enum InboxMiss: Error, Sendable {
  /// Nothing arrived within the timeout; the inbox is still open and a later message is kept.
  case timedOut
  /// The inbox ended (its stream finished or failed, `stop()`, or `finish(_:)`) and nothing is queued.
  case ended(any Error)
}

/// Queues the messages a link receives and hands them out one at a time with a timeout, so a waiter can
/// give up without consuming the stream. The one inbox of the KBeacon session (FEA2 frames,
/// docs/protocols/kbeacon.md §4, §12 action timeouts), the DFU links (control-point notifications,
/// docs/protocols/nordic-dfu.md §2.4; SLIP frames, §4) and the buttonless jump.
///
/// Semantics every user shares [I]:
/// - messages are delivered in arrival order; one that arrives after a waiter timed out is kept for the
///   next call, unless the user drops it with `discardBuffered()`;
/// - after the inbox ends, messages queued before the end are still delivered, then every call gets
///   `.ended` with the reason (a stream that simply finishes ends it with `LinkError(.disconnected)`);
/// - `stop()` cancels the pump, which ends the inbox the same way, so a pending waiter is released;
/// - cancelling the task that waits in `receive` does not release it early: it returns at the timeout or
///   when a message or the end arrives (every user passes a finite timeout).
public actor MessageInbox<Message: Sendable> {
  private var messages: [Message] = []
  /// The caller waiting in `receive`, and when its timeout falls due (on `clock`, since the inbox was made).
  private var waiter: (deadline: Duration, continuation: CheckedContinuation<Result<Message, InboxMiss>, Never>)?
  private var ending: (any Error)?
  private var pump: Task<Void, Never>?
  private let clock: WatchdogClock
  /// The receive timeout's one sleeping task (`armWatchdog`), when it will wake, and which one it is: a
  /// watchdog replaced by an earlier one finds its number stale and ends.
  private var watchdog: (task: Task<Void, Never>, wakes: Duration, number: Int)?
  private var watchdogsStarted = 0

  public init() { clock = WatchdogClock(ContinuousClock()) }

  /// An inbox whose timeouts run on `clock` (tests: a manual clock).
  init<C: Clock<Duration>>(clock: C) { self.clock = WatchdogClock(clock) }

  /// A released inbox stops its pump: a stream that never ends (from a link its owner let go of without
  /// closing it) would otherwise keep the pump task, and the stream, suspended for the rest of the process
  /// — LeakSanitizer's finding under scripts/sanitizers.
  deinit {
    pump?.cancel()
    watchdog?.task.cancel()
  }

  /// Starts reading `stream`; the inbox ends with `LinkError(.disconnected)` when the stream finishes.
  public func start(_ stream: AsyncStream<Message>) {
    pump = Task { [weak self] in
      for await message in stream { await self?.push(message) }
      await self?.finish(LinkError(.disconnected))
    }
  }

  /// Starts reading `stream`; the inbox ends when the stream finishes (`LinkError(.disconnected)`) or
  /// fails (its error).
  public func start(_ stream: AsyncThrowingStream<Message, any Error>) {
    pump = Task { [weak self] in
      do {
        for try await message in stream { await self?.push(message) }
        await self?.finish(LinkError(.disconnected))
      } catch {
        await self?.finish(error)
      }
    }
  }

  /// Stops reading (the stream's producer sees the cancellation); the inbox ends.
  public func stop() { pump?.cancel() }

  /// Queues `message`, or hands it to the waiter.
  public func push(_ message: Message) {
    if let w = waiter {
      waiter = nil
      w.continuation.resume(returning: .success(message))
    } else {
      messages.append(message)
    }
  }

  /// Ends the inbox with `reason` (the first reason wins); queued messages stay deliverable.
  public func finish(_ reason: any Error) {
    if ending == nil { ending = reason }
    if let w = waiter, let ending {
      waiter = nil
      w.continuation.resume(returning: .failure(.ended(ending)))
    }
    // Nobody waits on an ended inbox (a call returns at once), so its watchdog has nothing left to time.
    watchdog?.task.cancel()
    watchdog = nil
  }

  /// Drops the queued messages (ones that arrived late for an exchange that already ended).
  public func discardBuffered() { messages.removeAll() }

  /// The next message, `.timedOut` after `timeout`, or `.ended` once the inbox has ended and is empty.
  public func receive(timeout: Duration) async -> Result<Message, InboxMiss> {
    if !messages.isEmpty { return .success(messages.removeFirst()) }
    if let ending { return .failure(.ended(ending)) }
    let deadline = clock.elapsed() + timeout
    armWatchdog(for: deadline)
    return await withCheckedContinuation { waiter = (deadline, $0) }
  }

  /// The next message, or nil after `timeout` or once the inbox has ended (the DFU links report nil as an
  /// error, so the transfer treats it like a dropped link).
  public func next(timeout: Duration) async -> Message? {
    try? await receive(timeout: timeout).get()
  }

  /// Makes sure a watchdog wakes by `deadline`. The receive timeout's one sleeping task per inbox (not one
  /// per message, the same shape as `GATTClient.watchTransactions`): a message that arrives in time leaves it
  /// asleep; when it wakes it times out the waiter whose deadline has passed, or sleeps on to the current
  /// waiter's deadline, or ends when nobody waits. Only a deadline earlier than its wake (a shorter timeout
  /// than the last) replaces it. A timer task started and cancelled per message was a pool job, a wake of
  /// libdispatch's timer thread and a cancellation job for every KBeacon frame and DFU notification.
  private func armWatchdog(for deadline: Duration) {
    if let watchdog, watchdog.wakes <= deadline { return }
    watchdog?.task.cancel()
    watchdogsStarted += 1
    let (number, clock) = (watchdogsStarted, clock)
    let task = Task { [weak self] in
      var wakes = deadline
      while true {
        do { try await clock.sleepUntil(wakes) } catch { return }  // cancelled: replaced, or the inbox is gone
        guard let next = await self?.watchdogWoke(number) else { return }
        wakes = next
      }
    }
    watchdog = (task, deadline, number)
  }

  /// Watchdog `number` woke: times out a waiter whose deadline has passed; returns when to wake next, or nil
  /// to end (nobody waits, or a newer watchdog replaced this one).
  private func watchdogWoke(_ number: Int) -> Duration? {
    guard let current = watchdog, current.number == number else { return nil }
    if let w = waiter {
      if clock.elapsed() < w.deadline {
        watchdog = (current.task, w.deadline, number)
        return w.deadline
      }
      waiter = nil
      w.continuation.resume(returning: .failure(.timedOut))
    }
    watchdog = nil
    return nil
  }

  /// Watchdogs started so far (tests: one serves many messages).
  var watchdogCount: Int { watchdogsStarted }

  /// Whether a caller waits in `receive` (tests).
  var hasWaiter: Bool { waiter != nil }
}
