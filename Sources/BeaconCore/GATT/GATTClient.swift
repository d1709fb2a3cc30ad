/// A GATT client over one ATT bearer (Core v5.4 Vol 3 Part G §4, over Part F). One actor per link.
///
/// - Sequential protocol (Part F §3.3.2): one request outstanding at a time; concurrent callers queue in
///   call order. Commands (Write Command) and confirmations do not wait for the queue.
/// - Transaction timeout (Part F §3.3.3): a request unanswered for `transactionTimeout` (30 s by default,
///   measured on the injected `clock`) fails with `GATTError.transactionTimeout`, and the bearer is closed,
///   since no further ATT PDU may be sent on it.
/// - Notifications and indications are delivered in arrival order to `notifications(for:)` streams; an
///   indication is confirmed automatically after delivery (Part F §3.4.7.2).
/// - Requests the peer sends to us are answered: Exchange MTU with our MTU, anything else with Request Not
///   Supported (this client hosts no attribute database) [choice, documented].
/// - `roundTrips` counts requests sent, for benchmarks.
///
/// Cancellation of a calling task does not abort a transaction already on the air (ATT cannot cancel one).
public actor GATTClient {
  public nonisolated let bearer: any ATTBearer
  /// The ATT_MTU in force: 23 until an exchange, then min(ours, peer's) (Part F §3.4.2).
  public private(set) var mtu = ATTLimits.defaultMTU
  /// Requests sent (= ATT round trips) since this client was made.
  public private(set) var roundTrips = 0
  /// Write Commands sent.
  public private(set) var commandsSent = 0
  /// Well-formed responses that answered no outstanding request, ignored. On Linux another ATT client on
  /// the same link (bluetoothd's own discovery and MTU exchange, docs/protocols/linux-ble.md §4 item 4) can put them on
  /// our socket, so they are counted rather than treated as a protocol error [choice].
  public private(set) var strayResponses = 0
  /// What discovery found, once `discover()` ran.
  public private(set) var database: GATTDatabase?
  /// Why the client stopped (link lost, closed, timeout), once it has.
  public private(set) var terminationError: (any Error)?

  let preferredMTU: Int
  let transactionTimeout: Duration
  let timer: WatchdogClock
  /// The transaction timeout's sleeping task while a request may be outstanding (`watchTransactions()`).
  var watchdog: Task<Void, Never>?
  var mtuExchanged = false

  private var busy = false
  private var turnWaiters: [CheckedContinuation<Void, any Error>] = []
  private var pending: PendingRequest?
  private var nextTransaction = 0
  private var subscribers: [UInt16: [Int: AsyncStream<[UInt8]>.Continuation]] = [:]
  /// Notifications and indications received so far, per value handle (`notificationCount(for:)`).
  private var notified: [UInt16: Int] = [:]
  private var nextSubscriber = 0

  private struct PendingRequest {
    var id: Int
    var opcode: ATTOpcode
    var result: Result<ATTPDU, any Error>?
    var continuation: CheckedContinuation<ATTPDU, any Error>?
    /// When it times out: `timer.elapsed()` at the send plus `transactionTimeout`.
    var deadline: Duration
  }

  /// - Parameters:
  ///   - preferredMTU: the Client Rx MTU offered in `exchangeMTU()`; 247 by default.
  ///   - transactionTimeout: 30 s per the spec; tests pass a short one.
  ///   - clock: measures the timeout.
  public init(
    bearer: any ATTBearer, preferredMTU: Int = ATTLimits.preferredMTU, transactionTimeout: Duration = .seconds(30),
    clock: any Clock<Duration> = ContinuousClock()
  ) {
    self.bearer = bearer
    self.preferredMTU = max(ATTLimits.defaultMTU, min(preferredMTU, 517))
    self.transactionTimeout = transactionTimeout
    self.timer = WatchdogClock(clock)
    Task { await self.readLoop() }
  }

  // MARK: transactions

  /// Sends one request and returns the peer's answer: its success response, or throws `ATTRequestError` for
  /// an Error Response. Waits its turn behind earlier requests.
  public func transact(_ request: some ATTPDUCodable) async throws -> ATTPDU {
    let opcode = type(of: request).opcode
    guard opcode.isRequest else {
      throw GATTError.protocolViolation("\(opcode) is not a request; send it unacknowledged")
    }
    try await acquireTurn()
    defer { releaseTurn() }
    if let terminationError { throw terminationError }
    nextTransaction += 1
    let id = nextTransaction
    roundTrips += 1
    pending = PendingRequest(id: id, opcode: opcode, deadline: timer.elapsed() + transactionTimeout)
    if watchdog == nil { watchdog = Task { await self.watchTransactions() } }
    do {
      try await bearer.send(request.bytes)
    } catch {
      if pending?.id == id { pending = nil }
      throw terminationError ?? error
    }
    let answer = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ATTPDU, any Error>) in
      guard var current = pending, current.id == id else {
        continuation.resume(throwing: terminationError ?? GATTError.protocolViolation("request vanished"))
        return
      }
      if let result = current.result {
        pending = nil
        continuation.resume(with: result)
      } else {
        current.continuation = continuation
        pending = current
      }
    }
    if case .errorResponse(let error) = answer { throw ATTRequestError(error) }
    return answer
  }

  /// Sends a PDU that gets no response (Write Command, confirmation). Suspends until the bearer has taken
  /// it: a full socket buffer (the link's per-event capacity) thus paces the caller.
  func sendUnacknowledged(_ pdu: some ATTPDUCodable) async throws {
    if let terminationError { throw terminationError }
    try await bearer.send(pdu.bytes)
  }

  private func acquireTurn() async throws {
    if let terminationError { throw terminationError }
    if !busy {
      busy = true
      return
    }
    try await withCheckedThrowingContinuation { turnWaiters.append($0) }
  }

  private func releaseTurn() {
    if turnWaiters.isEmpty {
      busy = false
    } else {
      turnWaiters.removeFirst().resume()
    }
  }

  private func complete(_ result: Result<ATTPDU, any Error>) {
    guard var current = pending, current.result == nil else { return }
    if let continuation = current.continuation {
      pending = nil
      continuation.resume(with: result)
    } else {
      current.result = result
      pending = current
    }
  }

  /// The outstanding request's number and deadline, while one waits for its answer.
  func outstandingDeadline() -> (id: Int, deadline: Duration)? {
    guard terminationError == nil, let current = pending, current.result == nil else { return nil }
    return (current.id, current.deadline)
  }

  func watchdogStopped() { watchdog = nil }

  func transactionTimedOut(_ id: Int) async {
    guard let current = pending, current.id == id, current.result == nil else { return }
    let error = GATTError.transactionTimeout(request: current.opcode, after: transactionTimeout)
    terminate(error)
    await bearer.close()
  }

  /// Ends the client: every queued and outstanding request fails with `error`, streams finish.
  private func terminate(_ error: any Error) {
    if terminationError == nil { terminationError = error }
    watchdog?.cancel()
    complete(.failure(terminationError ?? error))
    let waiters = turnWaiters
    turnWaiters = []
    for waiter in waiters { waiter.resume(throwing: terminationError ?? error) }
    for streams in subscribers.values { for stream in streams.values { stream.finish() } }
    subscribers = [:]
  }

  /// Closes the link. Outstanding and queued requests fail with `LinkError(.closed)`.
  public func close() async {
    terminate(LinkError(.closed, peer: bearer.peer))
    await bearer.close()
  }

  /// `close()`, leaving the link for the peer to end (`ATTBearer.closeLeavingLink`).
  public func closeLeavingLink() async {
    terminate(LinkError(.closed, peer: bearer.peer))
    await bearer.closeLeavingLink()
  }

  func setMTU(_ value: Int) { mtu = value }
  func setDatabase(_ value: GATTDatabase) { database = value }
  func commandCount() { commandsSent += 1 }

  // MARK: incoming PDUs

  private func readLoop() async {
    do {
      for try await bytes in bearer.incoming { await handleIncoming(bytes) }
      terminate(LinkError(.disconnected, peer: bearer.peer))
    } catch {
      terminate(error)
    }
  }

  private func handleIncoming(_ bytes: [UInt8]) async {
    let pdu: ATTPDU
    do {
      pdu = try ATTPDU(bytes)
    } catch {
      await answerUndecodable(bytes, error)
      return
    }
    switch pdu {
    case .handleValueNotification(let n):
      deliver(n.value, for: n.handle)
    case .handleValueIndication(let i):
      deliver(i.value, for: i.handle)
      try? await sendUnacknowledged(ATTHandleValueConfirmation())
    case .exchangeMTURequest(let request):
      mtu = max(ATTLimits.defaultMTU, min(preferredMTU, Int(request.clientRxMTU)))
      try? await sendUnacknowledged(ATTExchangeMTUResponse(serverRxMTU: UInt16(preferredMTU)))
    case .errorResponse(let error):
      if let current = pending, error.requestOpcode == current.opcode.rawValue {
        complete(.success(pdu))
      } else {
        strayResponses += 1
      }
    default:
      if pdu.opcode == .handleValueConfirmation { return }  // we send no indications
      if pdu.opcode.isRequest || pdu.opcode == .writeCommand {
        if pdu.opcode.isRequest {
          try? await sendUnacknowledged(ATTErrorResponse(request: pdu.opcode, handle: 0, error: .requestNotSupported))
        }
        return
      }
      if let current = pending, current.opcode.responseOpcode == pdu.opcode {
        complete(.success(pdu))
      } else {
        strayResponses += 1
      }
    }
  }

  /// A malformed response fails the outstanding request; an unknown request gets Request Not Supported;
  /// anything else is ignored (Part F §3.4.9).
  private func answerUndecodable(_ bytes: [UInt8], _ error: any Error) async {
    guard let first = bytes.first else { return }
    if let opcode = ATTOpcode(rawValue: first), !opcode.isRequest, pending != nil,
      opcode == .errorResponse || pending?.opcode.responseOpcode == opcode
    {
      complete(.failure(GATTError.protocolViolation("\(error)")))
    } else if !ATTOpcode.isCommand(first), ATTOpcode(rawValue: first)?.isRequest ?? (first & 1 == 0) {
      try? await sendUnacknowledged(ATTErrorResponse(request: first, handle: 0, error: .requestNotSupported))
    }
  }

  // MARK: notifications

  /// Values notified or indicated on `valueHandle`, in arrival order, from now until the link ends (the
  /// stream then finishes) or the consumer stops. Unbounded buffering: nothing is dropped.
  public func notifications(for valueHandle: UInt16) -> AsyncStream<[UInt8]> { subscriber(for: valueHandle).stream }

  /// A new stream of `valueHandle`'s values and its subscriber number (for `endSubscriber`; nil when the link
  /// had already ended and the stream is finished).
  func subscriber(for valueHandle: UInt16) -> (stream: AsyncStream<[UInt8]>, id: Int?) {
    let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
    if terminationError != nil {
      continuation.finish()
      return (stream, nil)
    }
    nextSubscriber += 1
    let id = nextSubscriber
    subscribers[valueHandle, default: [:]][id] = continuation
    continuation.onTermination = { _ in Task { await self.unsubscribe(valueHandle, id) } }
    return (stream, id)
  }

  /// Finishes and forgets a subscriber whose stream nobody will read (a subscription whose CCCD write failed):
  /// left in place, it would buffer every value of its handle until the link ends.
  func endSubscriber(_ handle: UInt16, _ id: Int?) {
    guard let id, let continuation = subscribers[handle]?.removeValue(forKey: id) else { return }
    continuation.finish()
  }

  /// How many streams receive `valueHandle`'s values now.
  func subscriberCount(for valueHandle: UInt16) -> Int { subscribers[valueHandle]?.count ?? 0 }

  private func unsubscribe(_ handle: UInt16, _ id: Int) {
    subscribers[handle]?[id] = nil
  }

  /// How many notifications and indications of `valueHandle` this link has received so far. PDUs are handled
  /// in arrival order, so a count read before a request is sent counts exactly what the server sent before it
  /// saw the request (what a text-stream client needs to tell a line the device sent on its own from the
  /// start of an answer).
  public func notificationCount(for valueHandle: UInt16) -> Int { notified[valueHandle, default: 0] }

  private func deliver(_ value: [UInt8], for handle: UInt16) {
    notified[handle, default: 0] += 1
    guard let streams = subscribers[handle] else { return }
    for id in streams.keys.sorted() { streams[id]?.yield(value) }
  }
}
