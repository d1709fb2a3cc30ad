import BeaconCore

/// The two characteristics a `TextStreamClient` needs, once the link is set up (MTU exchanged, database
/// discovered, Tx notifications on). `GATTTextStreamLink` is the one used with real devices and with the
/// simulated fleet; tests use a scripted one.
public protocol TextStreamLink: Sendable {
  /// The device, for messages.
  var peer: BluetoothAddress { get }
  /// The profile the device was detected (or declared) as.
  var profile: TextStreamProfile { get }
  /// The negotiated ATT MTU.
  var attMTU: Int { get async }
  /// Writes one fragment to Rx with response; returns at the Write Response. Throws the device's Error
  /// Response (`ATTRequestError`) or the link's error.
  func write(_ fragment: [UInt8]) async throws
  /// Tx notifications in arrival order; the stream finishes when the link ends. Called once per link.
  func notifications() async -> AsyncStream<[UInt8]>
  /// Drops the link. Idempotent.
  func close() async
  /// How many notifications the link has received so far, counted where they arrive (before any
  /// buffering), so the client can tell which of them came before a command was written; nil when the link
  /// cannot tell (the client then goes by what it has taken from `notifications()`).
  var notificationsReceived: Int? { get async }
}

extension TextStreamLink {
  public var notificationsReceived: Int? { get async { nil } }
}

extension TextStreamExchange.WriteFailure {
  /// How a failed write reads to the engine: «Procedure Already in Progress» is busy, anything else a
  /// rejection.
  public init(_ error: any Error) {
    if let att = error as? ATTRequestError, att.code == .procedureAlreadyInProgress {
      self = .busy("\(att)")
    } else {
      self = .rejected("\(error)")
    }
  }
}
