import BeaconCore

/// Sends commands to one text-stream device and returns its answers (docs/protocols/text-stream.md), driving the pure
/// `TextStreamExchange` over a `TextStreamLink`: it performs the engine's writes, runs its one timer on
/// the injected `clock`, and feeds back acks, notifications, timer expiries and the link's end.
///
/// - One command in flight per device: a `send` while another runs fails at once with
///   `TextStreamError.commandInFlight`, as the library's `ERROR_DEVICE_SENDING_DATA_ALREADY` [the library
///   does not queue, so neither does this].
/// - Timeouts come from the profile unless the call brings its own.
/// - Notifications that arrive while no command is in flight (a device talking on its own, a fragment
///   later than the inter-fragment timeout) are not part of any answer: they go to `unsolicited`, which
///   keeps the newest 256 [I], and to `takeUnsolicited()`. The library reports them as data received too.
/// - So do notifications the link received before a command's first fragment was written, though this
///   client takes them from the link's buffer only later (hostile-input review: a device's `+EVENT:CONNECTED`, sent as
///   soon as the tool subscribed, landed inside the first command's answer): the link's count of what it
///   received (`TextStreamLink.notificationsReceived`), read just before the first write, marks where the
///   command starts. With `settle`, the first command waits that long after the link is set up, so a line
///   the device sends on subscribing has arrived [I: a device that answers subscribing at all does so at
///   once; the inter-fragment timeout is the wait the tool uses].
/// - A notification that arrives after a command's first fragment was written is that command's answer:
///   ATT carries no sequence number and the known profiles' devices echo nothing that names the command, so
///   an earlier answer's tail that comes that late cannot be told apart from the new answer. [I] The rule:
///   with `quietBeforeCommand`, every command after the first is written only once the link has been
///   silent that long (measured again after each notification, up to 10 times), so a tail that comes
///   within it is unsolicited. The CLI and the fleet's text sessions use twice the inter-fragment timeout
///   (400 ms): the answer before ended after 200 ms of silence, so only a tail later than 600 ms after
///   the device's last fragment can still land in the next answer.
/// - A fragment write still on the air when its send timer fires cannot be taken back (ATT cannot cancel
///   a request); its late ack is ignored.
public actor TextStreamClient {
  public nonisolated let link: any TextStreamLink
  public nonisolated let timeouts: TextStreamTimeouts
  public nonisolated let terminator: TextStreamTerminator
  /// Notifications outside any command, in arrival order.
  public nonisolated let unsolicited: AsyncStream<[UInt8]>
  /// Commands answered, for tests and reports.
  public private(set) var commandsAnswered = 0

  private let clock: any Clock<Duration>
  private let settle: Duration?
  private var settled = false
  private let quietBeforeCommand: Duration?
  /// Commands written so far (the first waits `settle`, the later ones `quietBeforeCommand`).
  private var commandsStarted = 0
  private let unsolicitedSink: AsyncStream<[UInt8]>.Continuation
  /// Unsolicited notifications not yet taken by `takeUnsolicited()`, the newest 256.
  private var unsolicitedKept: [[UInt8]] = []
  /// Notifications taken from the link so far, and how many of them came before the current command.
  private var taken = 0
  private var precedingCommand = 0
  private var current: AsyncStream<TextStreamExchange.Event>.Continuation?
  private var inFlight = false
  private var ended: String?
  private var pump: Task<Void, Never>?

  /// - Parameters:
  ///   - timeouts: the default for every command; the profile's when nil.
  ///   - terminator: appended to every command; the profile's when nil.
  ///   - clock: measures the engine's timeouts.
  ///   - settle: how long the first command waits for what the device says on its own once subscribed.
  ///   - quietBeforeCommand: how long the link must have been silent before a later command is written.
  public init(
    link: any TextStreamLink, timeouts: TextStreamTimeouts? = nil, terminator: TextStreamTerminator? = nil,
    clock: any Clock<Duration> = ContinuousClock(), settle: Duration? = nil, quietBeforeCommand: Duration? = nil
  ) {
    self.settle = settle
    self.quietBeforeCommand = quietBeforeCommand
    self.link = link
    self.timeouts = timeouts ?? link.profile.timeouts
    self.terminator = terminator ?? link.profile.terminator
    self.clock = clock
    (unsolicited, unsolicitedSink) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingNewest(256))
    Task { await self.startPump() }
  }

  private func startPump() {
    guard pump == nil, ended == nil else { return }
    pump = Task { [link] in
      for await value in await link.notifications() { self.deliver(value) }
      self.linkEnded("disconnected (\(link.peer))")
    }
  }

  private func deliver(_ value: [UInt8]) {
    taken += 1
    if let current, taken > precedingCommand {
      current.yield(.notification(value))
    } else {
      unsolicitedSink.yield(value)
      unsolicitedKept.append(value)
      if unsolicitedKept.count > 256 { unsolicitedKept.removeFirst() }
    }
  }

  /// The notifications outside any answer received since the last call, oldest first.
  public func takeUnsolicited() -> [[UInt8]] {
    defer { unsolicitedKept = [] }
    return unsolicitedKept
  }

  private func linkEnded(_ detail: String) {
    if ended == nil { ended = detail }
    current?.yield(.linkEnded(detail))
    unsolicitedSink.finish()
  }

  /// Sends `command` (the terminator is appended) and returns the answer.
  public func send(_ command: String, timeouts: TextStreamTimeouts? = nil) async throws(TextStreamError)
    -> TextStreamAnswer
  {
    try await send(bytes: Array(command.utf8), timeouts: timeouts)
  }

  /// Sends raw command bytes (the terminator is appended) and returns the answer.
  public func send(bytes command: [UInt8], timeouts: TextStreamTimeouts? = nil) async throws(TextStreamError)
    -> TextStreamAnswer
  {
    guard !inFlight else { throw .commandInFlight }
    if let ended { throw .linkLost(ended) }
    inFlight = true
    startPump()
    if let settle, !settled {
      settled = true
      try? await clock.sleep(for: settle)
    }
    if let quiet = quietBeforeCommand, commandsStarted > 0 {
      for _ in 0..<10 {
        let before = await received()
        try? await clock.sleep(for: quiet)
        if await received() == before { break }
      }
    }
    commandsStarted += 1
    let (events, sink) = AsyncStream.makeStream(of: TextStreamExchange.Event.self)
    var timer: Task<Void, Never>?
    defer {
      timer?.cancel()
      sink.finish()
      current = nil
      inFlight = false
    }
    let size = link.profile.fragmentSize(attMTU: await link.attMTU)
    // Everything the link holds now came before the command: not part of its answer, however late the
    // pump takes it.
    precedingCommand = max(taken, await link.notificationsReceived ?? taken)
    current = sink
    var exchange = TextStreamExchange(
      command: command, terminator: terminator, fragmentSize: size, timeouts: timeouts ?? self.timeouts)
    var action = exchange.start()
    var iterator = events.makeAsyncIterator()
    while true {
      switch action {
      case .write(let fragment, let armed):
        timer?.cancel()
        timer = arm(armed, sink)
        Task { [link] in
          do {
            try await link.write(fragment)
            sink.yield(.writeAcknowledged)
          } catch {
            sink.yield(.writeFailed(TextStreamExchange.WriteFailure(error)))
          }
        }
      case .arm(let armed):
        timer?.cancel()
        timer = arm(armed, sink)
      case .wait:
        break
      case .finish(let answer):
        commandsAnswered += 1
        return answer
      case .fail(let error):
        throw error
      }
      guard let event = await iterator.next(isolation: self) else { throw .cancelled }
      action = exchange.handle(event)
    }
  }

  /// Notifications received so far: the link's count, or what the pump took when the link keeps none.
  private func received() async -> Int {
    max(taken, await link.notificationsReceived ?? taken)
  }

  private func arm(_ timer: TextStreamExchange.Timer, _ sink: AsyncStream<TextStreamExchange.Event>.Continuation)
    -> Task<Void, Never>
  {
    Task { [clock] in
      do { try await clock.sleep(for: timer.duration) } catch { return }
      guard !Task.isCancelled else { return }
      sink.yield(.timerExpired(token: timer.token))
    }
  }

  /// Stops listening and drops the link.
  public func close() async {
    pump?.cancel()
    linkEnded("closed")
    await link.close()
  }
}
