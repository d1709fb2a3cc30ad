/// Queues control-point notifications and hands them out one at a time with a timeout (nordic-dfu.md
/// §2.4: every response and PRN receipt is a notification). A missing answer becomes nil, which the BLE
/// link reports as an error so the transfer treats it like a dropped link.
actor NotificationInbox {
  private var messages: [[UInt8]] = []
  private var waiter: (id: Int, continuation: CheckedContinuation<[UInt8]?, Never>)?
  private var nextID = 0
  private var ended = false
  private var pump: Task<Void, Never>?

  /// Starts reading `stream` (ends when the stream finishes, i.e. the link dropped).
  func start(_ stream: AsyncStream<[UInt8]>) {
    pump = Task { [weak self] in
      for await value in stream { await self?.deliver(value) }
      await self?.end()
    }
  }

  func stop() { pump?.cancel() }

  private func deliver(_ value: [UInt8]) {
    if let w = waiter {
      waiter = nil
      w.continuation.resume(returning: value)
    } else {
      messages.append(value)
    }
  }

  private func end() {
    ended = true
    if let w = waiter {
      waiter = nil
      w.continuation.resume(returning: nil)
    }
  }

  func next(timeout: Duration) async -> [UInt8]? {
    if !messages.isEmpty { return messages.removeFirst() }
    if ended { return nil }
    nextID += 1
    let id = nextID
    let timer = Task { [weak self] in
      try? await Task.sleep(for: timeout)
      await self?.expire(id)
    }
    let value = await withCheckedContinuation { waiter = (id, $0) }
    timer.cancel()
    return value
  }

  private func expire(_ id: Int) {
    guard let w = waiter, w.id == id else { return }
    waiter = nil
    w.continuation.resume(returning: nil)
  }
}
