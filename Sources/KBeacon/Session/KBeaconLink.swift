import BeaconCore

/// The three characteristics a `KBeaconSession` needs, after the link-level steps of kbeacon-protocol.md §3
/// (MTU exchange, discovery, FEA2 notifications enabled). The GATT implementation
/// (`GATTKBeaconLink`) is the one used with real hardware and with the simulated fleet.
public protocol KBeaconLink: Sendable {
  /// The device, for the auth digest (§5) and for errors.
  var peer: BluetoothAddress { get }
  /// The negotiated ATT MTU of the link.
  var attMTU: Int { get async }
  /// Writes one frame to FEA1 (§2: without response when the characteristic allows it).
  func writeFrame(_ frame: [UInt8]) async throws
  /// FEA2 notifications, in order, until the link drops. Called once per session.
  func frames() async throws -> AsyncThrowingStream<[UInt8], any Error>
  /// Enables FEA3 indications (CCCD 02 00, or 01 00 for notify-only) and returns their payloads; throws
  /// `KBeaconError.notSupported` when the device has no FEA3 (§2).
  func indications() async throws -> AsyncThrowingStream<[UInt8], any Error>
  /// Drops the link. Idempotent.
  func close() async
}

/// Reads from a frame stream with a deadline (kbeacon-protocol.md §12 action timeouts). A pump task moves
/// frames from the link into the inbox so a waiter can give up without consuming the stream.
actor FrameInbox {
  private var buffer: [[UInt8]] = []
  private var waiter: CheckedContinuation<[UInt8], any Error>?
  private var waiterID = 0
  private var ended: (any Error)?

  func push(_ frame: [UInt8]) {
    if let w = waiter {
      waiter = nil
      w.resume(returning: frame)
    } else {
      buffer.append(frame)
    }
  }

  func finish(_ error: any Error) {
    ended = error
    waiter?.resume(throwing: error)
    waiter = nil
  }

  /// The next frame, or `KBeaconError.timeout(operation)` when none arrives within `timeout`.
  func next(timeout: Duration, operation: String) async throws -> [UInt8] {
    if !buffer.isEmpty { return buffer.removeFirst() }
    if let ended { throw ended }
    waiterID += 1
    let id = waiterID
    let timer = Task { [weak self] in
      try await Task.sleep(for: timeout)
      await self?.expire(id, operation)
    }
    defer { timer.cancel() }
    return try await withCheckedThrowingContinuation { waiter = $0 }
  }

  private func expire(_ id: Int, _ operation: String) {
    guard id == waiterID, let w = waiter else { return }
    waiter = nil
    w.resume(throwing: KBeaconError.timeout(operation: operation))
  }

  /// Drops frames that arrived late for an exchange that already ended.
  func discardBuffered() { buffer.removeAll() }
}
