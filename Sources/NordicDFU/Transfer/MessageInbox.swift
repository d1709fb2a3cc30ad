/// Queues the messages a DFU link receives — control-point notifications on BLE (nordic-dfu.md §2.4),
/// SLIP frames on serial (§4) — and hands them out one at a time with a timeout. A missing answer is nil,
/// which the links report as an error so the transfer treats it like a dropped link. The one inbox of
/// both transports and of the buttonless jump.
actor MessageInbox {
  private var messages: [[UInt8]] = []
  private var waiter: (id: Int, continuation: CheckedContinuation<[UInt8]?, Never>)?
  private var nextID = 0
  private var ended = false
  private var pump: Task<Void, Never>?

  init() {}

  /// Starts reading `stream`; the inbox ends when the stream finishes (the link dropped).
  func start(_ stream: AsyncStream<[UInt8]>) {
    pump = Task { [weak self] in
      for await message in stream { await self?.deliver(message) }
      await self?.end()
    }
  }

  /// Stops reading (the stream's producer sees the cancellation).
  func stop() { pump?.cancel() }

  private func deliver(_ message: [UInt8]) {
    if let w = waiter {
      waiter = nil
      w.continuation.resume(returning: message)
    } else {
      messages.append(message)
    }
  }

  private func end() {
    ended = true
    if let w = waiter {
      waiter = nil
      w.continuation.resume(returning: nil)
    }
  }

  /// The next message, or nil after `timeout` or once the stream has ended.
  func next(timeout: Duration) async -> [UInt8]? {
    if !messages.isEmpty { return messages.removeFirst() }
    if ended { return nil }
    nextID += 1
    let id = nextID
    let timer = Task { [weak self] in
      try? await Task.sleep(for: timeout)
      await self?.expire(id)
    }
    let message = await withCheckedContinuation { waiter = (id, $0) }
    timer.cancel()
    return message
  }

  private func expire(_ id: Int) {
    guard let w = waiter, w.id == id else { return }
    waiter = nil
    w.continuation.resume(returning: nil)
  }
}

extension SLIPDecoder {
  /// The complete frames of a byte stream (invalid frames dropped, §4); finishes when the bytes end or
  /// fail, and stops reading when the consumer goes away.
  static func frames(of bytes: AsyncThrowingStream<[UInt8], any Error>) -> AsyncStream<[UInt8]> {
    AsyncStream { continuation in
      let reader = Task {
        var decoder = SLIPDecoder()
        do {
          for try await chunk in bytes {
            for case .frame(let frame) in decoder.feed(chunk) { continuation.yield(frame) }
          }
        } catch {}
        continuation.finish()
      }
      continuation.onTermination = { _ in reader.cancel() }
    }
  }
}
