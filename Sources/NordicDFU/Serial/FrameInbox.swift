/// Collects SLIP frames from a `ByteChannel` and hands them out one at a time with a timeout — the
/// receiving half of the serial DFU client (nordic-dfu.md §4). A missing response within the timeout is
/// reported as `DFUTransportError`, which the transfer treats as a dropped link.
actor FrameInbox {
  private var decoder = SLIPDecoder()
  private var frames: [[UInt8]] = []
  private var waiter: (id: Int, continuation: CheckedContinuation<[UInt8]?, Never>)?
  private var nextWaiterID = 0
  private var ended = false
  private var pump: Task<Void, Never>?

  init() {}

  /// Starts reading `channel.incoming`.
  func start(_ channel: any ByteChannel) {
    pump = Task { [weak self] in
      do {
        for try await bytes in channel.incoming { await self?.feed(bytes) }
      } catch {}
      await self?.end()
    }
  }

  func stop() { pump?.cancel() }

  private func feed(_ bytes: [UInt8]) {
    for output in decoder.feed(bytes) {
      guard case .frame(let frame) = output else { continue }
      if let w = waiter {
        waiter = nil
        w.continuation.resume(returning: frame)
      } else {
        frames.append(frame)
      }
    }
  }

  private func end() {
    ended = true
    if let w = waiter {
      waiter = nil
      w.continuation.resume(returning: nil)
    }
  }

  /// Drops frames received so far (stale answers from before a reconnect).
  func discardPending() { frames.removeAll() }

  /// The next frame, or nil after `timeout` or when the channel ended.
  func next(timeout: Duration) async -> [UInt8]? {
    if !frames.isEmpty { return frames.removeFirst() }
    if ended { return nil }
    nextWaiterID += 1
    let id = nextWaiterID
    let timer = Task { [weak self] in
      try? await Task.sleep(for: timeout)
      await self?.expire(id)
    }
    let frame = await withCheckedContinuation { waiter = (id, $0) }
    timer.cancel()
    return frame
  }

  private func expire(_ id: Int) {
    guard let w = waiter, w.id == id else { return }
    waiter = nil
    w.continuation.resume(returning: nil)
  }
}
