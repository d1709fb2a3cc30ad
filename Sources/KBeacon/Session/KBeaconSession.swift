import BeaconCore

/// One authenticated configuration session with a KBeacon (docs/protocols/kbeacon.md §3–§9, §16): authenticate,
/// read the configuration (detecting the generation, §1), write only given keys, run commands, read sensor
/// history, follow FEA3 events. One request at a time (§4.5): an overlapping call fails with `.busy`.
/// A wrong password throws `KBeaconAuthenticationError.wrongPassword` and is never retried here.
public actor KBeaconSession {
  /// Per-action timeouts (§12); tests shorten them.
  public struct Timeouts: Sendable {
    public var authentication = KBeaconTimeouts.authentication
    public var read = KBeaconTimeouts.read
    public var write = KBeaconTimeouts.write
    public var command = KBeaconTimeouts.command
    public init() {}
    /// Every action limited to `duration`.
    public static func all(_ duration: Duration) -> Timeouts {
      var t = Timeouts()
      t.authentication = duration
      t.read = duration
      t.write = duration
      t.command = duration
      return t
    }
  }

  /// Randomness and time, injected so the session stays testable and free of hidden I/O.
  public struct Environment: Sendable {
    public var randomBytes: @Sendable (Int) -> [UInt8]
    public var now: @Sendable () -> UInt32
    public init(randomBytes: @escaping @Sendable (Int) -> [UInt8], now: @escaping @Sendable () -> UInt32) {
      self.randomBytes = randomBytes
      self.now = now
    }
  }

  public let link: any KBeaconLink
  public let timeouts: Timeouts
  let environment: Environment
  let inbox = MessageInbox<[UInt8]>()
  private var listening = false
  private var inFlight = false
  /// Payload bytes per frame: 17 before auth, then from the smaller MTU (§4.2).
  public private(set) var budget = FrameBudget.payloadBytes(attMTU: FrameBudget.defaultATTMTU)
  public private(set) var deviceMTU: Int?
  public internal(set) var generation: ProtocolGeneration?
  /// Everything read or written so far.
  public internal(set) var configuration: KBeaconConfiguration?

  public init(link: any KBeaconLink, environment: Environment, timeouts: Timeouts = Timeouts()) {
    self.link = link
    self.environment = environment
    self.timeouts = timeouts
  }

  /// Starts listening on FEA2. Called by `authenticate`.
  private func startPump() async throws {
    guard !listening else { return }
    await inbox.start(try await link.frames())
    listening = true
  }

  /// Marks the single outstanding action (§4.5).
  func begin() throws(KBeaconError) {
    guard !inFlight else { throw .busy }
    inFlight = true
  }

  func end() { inFlight = false }

  /// Auth phases 1–4 (§5) with the clock set to `environment.now()`. On a wrong password the link is closed
  /// and `KBeaconAuthenticationError.wrongPassword` thrown.
  @discardableResult
  public func authenticate(password: KBeaconPassword, setClock: Bool = true) async throws -> Int {
    try begin()
    defer { end() }
    try await startPump()
    var auth = AppAuthenticator(
      address: link.peer, password: password, random: environment.randomBytes(4),
      utc: setClock ? environment.now() : nil)
    try await link.writeFrame(auth.start())
    while true {
      let frame = try await inbox.next(timeout: timeouts.authentication, operation: "authentication")
      guard frame.first.map({ $0 >> 4 == FrameHeader.DataType.auth.rawValue }) == true else { continue }
      switch auth.receive(frame) {
      case .send(let reply): try await link.writeFrame(reply)
      case .authenticated(let mtu):
        deviceMTU = mtu
        budget = FrameBudget.payloadBytes(linkMTU: await link.attMTU, reportedMTU: mtu)
        return mtu
      case .fail(let error):
        await link.close()
        throw error
      }
    }
  }

  /// Runs one request/response exchange (§4.2–§4.4) and returns its messages.
  func exchange(_ kind: RequestExchange.Kind, _ message: [UInt8], timeout: Duration, operation: String) async throws
    -> [[UInt8]]
  {
    guard deviceMTU != nil else { throw KBeaconError.stateError("not authenticated") }
    try begin()
    defer { end() }
    // Frames left over from an exchange that failed (timeout, error) must not answer this one.
    await inbox.discardBuffered()
    var exchange = RequestExchange(kind: kind, message: message, budget: budget)
    try await link.writeFrame(exchange.start())
    while true {
      let frame = try await inbox.next(timeout: timeout, operation: operation)
      switch exchange.receive(frame) {
      case .send(let bytes): try await link.writeFrame(bytes)
      case .wait: continue
      case .finish(let response, let ack):
        if let ack { try await link.writeFrame(ack) }
        return response.messages
      case .fail(let error, let ack):
        if let ack { try? await link.writeFrame(ack) }
        throw error
      }
    }
  }

  public func close() async {
    await inbox.stop()
    await link.close()
  }
}
