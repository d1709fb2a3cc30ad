import BeaconCore

/// The three characteristics a `KBeaconSession` needs, after the link-level steps of docs/protocols/kbeacon.md §3
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

extension MessageInbox where Message == [UInt8] {
  /// The next FEA2 frame; `KBeaconError.timeout(operation)` when none arrives within `timeout`
  /// (docs/protocols/kbeacon.md §12 action timeouts), the link's error once it has dropped.
  func next(timeout: Duration, operation: String) async throws -> [UInt8] {
    switch await receive(timeout: timeout) {
    case .success(let frame): return frame
    case .failure(.timedOut): throw KBeaconError.timeout(operation: operation)
    case .failure(.ended(let error)): throw error
    }
  }
}
