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
  private var waiter: (id: Int, continuation: CheckedContinuation<Result<Message, InboxMiss>, Never>)?
  private var nextID = 0
  private var ending: (any Error)?
  private var pump: Task<Void, Never>?

  public init() {}

  /// A released inbox stops its pump: a stream that never ends (from a link its owner let go of without
  /// closing it) would otherwise keep the pump task, and the stream, suspended for the rest of the process
  /// — LeakSanitizer's finding under scripts/sanitizers.
  deinit { pump?.cancel() }

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
  }

  /// Drops the queued messages (ones that arrived late for an exchange that already ended).
  public func discardBuffered() { messages.removeAll() }

  /// The next message, `.timedOut` after `timeout`, or `.ended` once the inbox has ended and is empty.
  public func receive(timeout: Duration) async -> Result<Message, InboxMiss> {
    if !messages.isEmpty { return .success(messages.removeFirst()) }
    if let ending { return .failure(.ended(ending)) }
    nextID += 1
    let id = nextID
    let timer = Task { [weak self] in
      guard (try? await Task.sleep(for: timeout)) != nil else { return }
      await self?.expire(id)
    }
    defer { timer.cancel() }
    return await withCheckedContinuation { waiter = (id, $0) }
  }

  /// The next message, or nil after `timeout` or once the inbox has ended (the DFU links report nil as an
  /// error, so the transfer treats it like a dropped link).
  public func next(timeout: Duration) async -> Message? {
    try? await receive(timeout: timeout).get()
  }

  private func expire(_ id: Int) {
    guard let w = waiter, w.id == id else { return }
    waiter = nil
    w.continuation.resume(returning: .failure(.timedOut))
  }
}
