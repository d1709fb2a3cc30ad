/// One command and its answer on a text-stream device, as a pure state machine (docs/protocols/text-stream.md,
/// "Protocol behaviour"; iOS `deviceSendDataPiece` and `watchDogTimerTickReceivingData`, Android
/// `accumulateValues`). It does no I/O and reads no clock: `start()` and `handle(_:)` return what to do,
/// and the driver (`TextStreamClient`) writes, arms the one timer and reports back.
///
/// The sequence:
/// 1. The command plus the terminator is cut into fragments of `fragmentSize` bytes.
/// 2. Each fragment is written with response; the next goes only after the ack. The ack of the first
///    fragment is awaited for `firstFragmentSend`, later ones for `laterFragmentSend`.
/// 3. After the last ack the first-packet timer runs (2 s). Each notification appends to the buffer and
///    (re)arms the inter-fragment timer (200 ms).
/// 4. When a receive timer fires with bytes in the buffer, the answer is complete — by silence, not by
///    terminator, as the library does. With an empty buffer it is a receive timeout.
///
/// Choices [I]:
/// - A notification that arrives before the last ack (a device that answers early) is kept; the timer
///   armed after the last ack is then the inter-fragment one, not the first-packet one.
/// - A write the device refuses with «Procedure Already in Progress» is `deviceBusy`; any other refusal
///   is `writeRejected`. Neither is retried here.
/// - A timer event whose token is not the armed timer's is stale and ignored, so a driver may let a
///   cancelled timer fire.
public struct TextStreamExchange: Sendable {
  /// What the driver reports.
  public enum Event: Sendable, Hashable {
    /// The outstanding fragment's Write Response arrived.
    case writeAcknowledged
    /// The outstanding fragment's write failed.
    case writeFailed(WriteFailure)
    /// A notification on Tx.
    case notification([UInt8])
    /// The timer with this token ran out.
    case timerExpired(token: Int)
    /// The link ended.
    case linkEnded(String)
  }

  public enum WriteFailure: Sendable, Hashable {
    /// «Procedure Already in Progress» (0xFE).
    case busy(String)
    case rejected(String)
  }

  /// Which wait a timer measures.
  public enum Phase: Sendable, Hashable {
    case firstFragmentSend, laterFragmentSend, firstPacket, interFragment
  }

  /// A timer to (re)arm; it replaces any timer armed before.
  public struct Timer: Sendable, Hashable {
    public var token: Int
    public var phase: Phase
    public var duration: Duration
  }

  public enum Action: Sendable, Hashable {
    /// Write this fragment with response, and arm `timer` for its ack.
    case write([UInt8], timer: Timer)
    /// Arm `timer` and wait.
    case arm(Timer)
    /// Keep waiting; the armed timer stays.
    case wait
    /// The answer is complete; the exchange is over.
    case finish(TextStreamAnswer)
    /// The exchange failed; it is over.
    case fail(TextStreamError)
  }

  public let fragments: [[UInt8]]
  public let timeouts: TextStreamTimeouts
  private var next = 0
  private var buffer: [UInt8] = []
  private var notifications = 0
  private var timer: Timer?
  private var tokens = 0
  private var over = false

  /// - Parameters:
  ///   - command: the command text's bytes, without the terminator.
  ///   - fragmentSize: `TextStreamProfile.fragmentSize(attMTU:)`.
  public init(command: [UInt8], terminator: TextStreamTerminator, fragmentSize: Int, timeouts: TextStreamTimeouts) {
    fragments = Self.fragments(of: command + terminator.bytes, size: fragmentSize)
    self.timeouts = timeouts
  }

  /// `bytes` cut into pieces of at most `size` bytes, in order.
  public static func fragments(of bytes: [UInt8], size: Int) -> [[UInt8]] {
    let size = max(1, size)
    return stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min(bytes.count, $0 + size)]) }
  }

  /// Whether the exchange has finished or failed.
  public var isOver: Bool { over }

  /// The first action: write the first fragment.
  public mutating func start() -> Action {
    guard !fragments.isEmpty else { return end(.fail(.emptyCommand)) }
    return writeNext()
  }

  public mutating func handle(_ event: Event) -> Action {
    guard !over else { return .wait }
    switch event {
    case .writeAcknowledged:
      guard let timer, timer.phase == .firstFragmentSend || timer.phase == .laterFragmentSend else { return .wait }
      if next < fragments.count { return writeNext() }
      return buffer.isEmpty ? arm(.firstPacket, timeouts.firstPacket) : arm(.interFragment, timeouts.interFragment)
    case .writeFailed(.busy(let detail)):
      return end(.fail(.deviceBusy(detail: detail)))
    case .writeFailed(.rejected(let detail)):
      return end(.fail(.writeRejected(fragment: next, detail: detail)))
    case .notification(let value):
      buffer += value
      notifications += 1
      guard let timer, timer.phase == .firstPacket || timer.phase == .interFragment else { return .wait }
      return arm(.interFragment, timeouts.interFragment)
    case .timerExpired(let token):
      guard let timer, timer.token == token else { return .wait }
      switch timer.phase {
      case .firstFragmentSend, .laterFragmentSend:
        return end(.fail(.sendTimeout(fragment: next, of: fragments.count, after: timer.duration)))
      case .firstPacket, .interFragment:
        if buffer.isEmpty { return end(.fail(.receiveTimeout(after: timer.duration))) }
        return end(.finish(TextStreamAnswer(bytes: buffer, notifications: notifications)))
      }
    case .linkEnded(let detail):
      return end(.fail(.linkLost(detail)))
    }
  }

  private mutating func writeNext() -> Action {
    let phase: Phase = next == 0 ? .firstFragmentSend : .laterFragmentSend
    let fragment = fragments[next]
    next += 1
    let timer = makeTimer(phase, next == 1 ? timeouts.firstFragmentSend : timeouts.laterFragmentSend)
    return .write(fragment, timer: timer)
  }

  private mutating func arm(_ phase: Phase, _ duration: Duration) -> Action {
    .arm(makeTimer(phase, duration))
  }

  private mutating func makeTimer(_ phase: Phase, _ duration: Duration) -> Timer {
    tokens += 1
    let timer = Timer(token: tokens, phase: phase, duration: duration)
    self.timer = timer
    return timer
  }

  private mutating func end(_ action: Action) -> Action {
    over = true
    timer = nil
    return action
  }
}
