import BeaconCore

/// How a simulated LE link behaves (docs/protocols/simulator.md "The simulator"; Core v5.4 Vol 6 Part B §4.5.1 connection
/// events). Defaults are those of a typical phone-to-beacon link; tests pass `.instant`.
public struct LinkModel: Sendable, Hashable {
  /// Time the device takes to answer one ATT request: one connection interval (7.5 ms … 4 s on air).
  public var roundTripLatency: Duration
  /// The device's largest ATT_MTU; the client gets min(its ask, this).
  public var maxMTU: Int
  /// Write Commands the device takes in one connection event; after that many it waits one
  /// `roundTripLatency` before reading more, and the socket's bounded queue pushes back on the sender.
  public var writesWithoutResponsePerEvent: Int

  public init(roundTripLatency: Duration = .milliseconds(15), maxMTU: Int = 247, writesWithoutResponsePerEvent: Int = 6)
  {
    self.roundTripLatency = roundTripLatency
    self.maxMTU = maxMTU
    self.writesWithoutResponsePerEvent = max(1, writesWithoutResponsePerEvent)
  }

  /// No latency, MTU 247: for tests.
  public static let instant = LinkModel(roundTripLatency: .zero)
}

/// Faults a simulated link injects (docs/protocols/simulator.md "fault injection").
public struct LinkFaults: Sendable {
  /// Drop the link once the device has received more than this many ATT octets (the PDU that crosses the
  /// line is lost with it).
  public var dropAfterBytes: Int?
  /// Answer this many requests, then keep reading but never answer again (the client's transaction
  /// timeout fires).
  public var stopAnsweringAfterRequests: Int?
  /// Drop the link when a client PDU matches, before it is processed.
  public var disconnectWhen: (@Sendable (ATTPDU) -> Bool)?
  /// Answer a matching request with this Error Response instead of serving it ("busy": e.g.
  /// `.procedureAlreadyInProgress`, `.insufficientResources`); the handle is the request's first handle.
  public var refuse: (@Sendable (ATTPDU) -> ATTErrorCode?)?
  /// Corrupt the n-th response (1-based): only its opcode is sent, which no response may be.
  public var corruptResponseNumber: Int?

  public init(
    dropAfterBytes: Int? = nil, stopAnsweringAfterRequests: Int? = nil,
    disconnectWhen: (@Sendable (ATTPDU) -> Bool)? = nil, refuse: (@Sendable (ATTPDU) -> ATTErrorCode?)? = nil,
    corruptResponseNumber: Int? = nil
  ) {
    self.dropAfterBytes = dropAfterBytes
    self.stopAnsweringAfterRequests = stopAnsweringAfterRequests
    self.disconnectWhen = disconnectWhen
    self.refuse = refuse
    self.corruptResponseNumber = corruptResponseNumber
  }

  public static let none = LinkFaults()
}

/// The cap on concurrent links of one simulated adapter (controllers manage ~3–7: docs/protocols/linux-ble.md §4 item 6).
public actor LinkCapacity {
  public nonisolated let limit: Int
  public private(set) var inUse = 0

  public init(limit: Int) { self.limit = limit }

  /// Takes a slot or throws `LinkError(.tooManyLinks)`.
  public func acquire(for peer: BluetoothAddress) throws {
    guard inUse < limit else {
      throw LinkError(.tooManyLinks, peer: peer, detail: "\(limit) link(s) already open on this adapter")
    }
    inUse += 1
  }

  public func release() {
    inUse = max(0, inUse - 1)
    for waiter in roomWaiters { waiter.resume() }
    roomWaiters = []
  }

  private var roomWaiters: [CheckedContinuation<Void, Never>] = []

  /// Returns once a slot is free (at once when one is): a link's close releases its slot after the close
  /// returns, so a caller that must reconnect at the limit waits for this instead of polling `inUse`.
  public func waitForRoom() async {
    guard inUse >= limit else { return }
    await withCheckedContinuation { roomWaiters.append($0) }
  }
}
