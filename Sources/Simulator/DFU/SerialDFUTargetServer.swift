import NordicDFU

/// Serves a `SimulatedDFUTarget` as a UART DFU bootloader (docs/protocols/nordic-dfu.md §4) on a byte channel — normally
/// the master side of a `PseudoTerminal`, so any serial client (ours, or Nordic's `nrfutil dfu serial`)
/// can open the pty path. One SLIP frame in → zero or more SLIP frames out. After a `.dropLink` fault the
/// server ignores everything until the next Ping, which every serial client sends when it (re)connects.
public actor SerialDFUTargetServer {
  public private(set) var target: SimulatedDFUTarget
  private let channel: any ByteChannel
  private var decoder = SLIPDecoder()
  private var linkDown = false
  private var pump: Task<Void, Never>?
  private var watchdog: Task<Void, Never>?
  private var lastActivity = ContinuousClock.now
  /// Every request frame received, in order (for tests and `-v` traces).
  public private(set) var receivedOpCodes: [UInt8] = []
  public private(set) var resets = 0
  public private(set) var linkDrops = 0
  /// Callers of `waitUntilApplicationRuns`.
  private var applicationWaiters: [CheckedContinuation<Void, Never>] = []

  public init(target: SimulatedDFUTarget, channel: any ByteChannel) {
    self.target = target
    self.channel = channel
  }

  /// Starts serving (returns at once). The bootloader's inactivity timeout (§2.6,
  /// `configuration.inactivityTimeout`) runs on the real clock: idle that long, it returns to a valid app.
  public func start() {
    pump = Task { [channel] in
      do {
        for try await bytes in channel.incoming { await self.receive(bytes) }
      } catch {}
    }
    let timeout = target.configuration.inactivityTimeout
    watchdog = Task {
      while !Task.isCancelled {
        try? await Task.sleep(for: timeout / 4)
        self.checkInactivity(timeout)
      }
    }
  }

  private func checkInactivity(_ timeout: Duration) {
    guard target.inBootloader, ContinuousClock.now - lastActivity >= timeout else { return }
    target.inactivityElapsed()
    releaseApplicationWaiters()
  }

  /// Returns once the target has left its bootloader — an activated image, or the inactivity timeout giving
  /// the old application back (at once when it is not in it). A signal, so callers need not sleep.
  public func waitUntilApplicationRuns() async {
    guard target.inBootloader else { return }
    await withCheckedContinuation { applicationWaiters.append($0) }
  }

  private func releaseApplicationWaiters() {
    guard !target.inBootloader else { return }
    for waiter in applicationWaiters { waiter.resume() }
    applicationWaiters = []
  }

  public func stop() async {
    watchdog?.cancel()
    pump?.cancel()
    await channel.close()
  }

  /// Changes faults between runs.
  public func setFaults(_ faults: DFUTargetFaults) { target.faults = faults }

  /// Fires the inactivity timeout now.
  public func inactivityElapsed() {
    target.inactivityElapsed()
    releaseApplicationWaiters()
  }

  func receive(_ bytes: [UInt8]) async {
    lastActivity = .now
    for output in decoder.feed(bytes) {
      guard case .frame(let frame) = output, let op = frame.first else { continue }
      if linkDown {
        guard op == 0x09 else { continue }
        linkDown = false
      }
      receivedOpCodes.append(op)
      for result in target.handle(request: frame) {
        switch result {
        case .respond(let response): try? await channel.write(SLIP.encode(response))
        case .dropLink:
          linkDown = true
          linkDrops += 1
        case .reset: resets += 1
        }
      }
      releaseApplicationWaiters()
      if linkDown { return }  // the rest of this read was "in the air" when the link went
    }
  }
}
