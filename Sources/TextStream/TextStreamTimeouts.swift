/// The timeouts of one text-stream exchange (docs/protocols/text-stream.md, "Protocol behaviour" and "Defaults"). Every
/// profile carries a set; a command may bring its own (`TextStreamClient.send(_:timeouts:)`).
///
/// The library's names: `tmConnect`, `tmReceiveFirstPacket`, `tmReceivePackets`, `tmSendPackets`.
///
/// Choices [I]:
/// - The send-ack watchdog. The library waits for the first fragment's ack with the first-packet timeout
///   and for the later fragments' acks with the inter-fragment one (200 ms). Here they are two separate
///   settings. The first defaults to 2 s, as the library. The later one defaults to the library's write
///   timeout (1.5 s), not to 200 ms: one write round trip on a slow connection interval, or with a link-layer
///   retransmission, can take longer than 200 ms, and a send timeout leaves the link with an unanswered
///   ATT request.
/// - `connect` records the library's link set-up limit; the engine never uses it. `txrx` connects with
///   `--connect-timeout` (10 s by default) like every one-device command, not with these 20 s.
public struct TextStreamTimeouts: Sendable, Hashable {
  /// Opening the link (`tmConnect`, 20 s).
  public var connect: Duration
  /// Ack (Write Response) of the first fragment of a command.
  public var firstFragmentSend: Duration
  /// Ack of each later fragment.
  public var laterFragmentSend: Duration
  /// From the last fragment's ack to the first notification (`tmReceiveFirstPacket`, 2 s). When it expires
  /// with nothing received, the command fails with a receive timeout.
  public var firstPacket: Duration
  /// Silence after a notification that ends the answer (`tmReceivePackets`, 200 ms).
  public var interFragment: Duration

  public init(
    connect: Duration = .seconds(20), firstFragmentSend: Duration = .seconds(2),
    laterFragmentSend: Duration = .milliseconds(1500), firstPacket: Duration = .seconds(2),
    interFragment: Duration = .milliseconds(200)
  ) {
    self.connect = connect
    self.firstFragmentSend = firstFragmentSend
    self.laterFragmentSend = laterFragmentSend
    self.firstPacket = firstPacket
    self.interFragment = interFragment
  }

  /// The library's defaults.
  public static let library = TextStreamTimeouts()

  /// These timeouts with those given replaced (the CLI's `--timeout-first`, `--timeout-next` and
  /// `--timeout-ack`; `send` is every fragment's acknowledgement, the first's and the later ones').
  public func overriding(firstPacket: Duration? = nil, interFragment: Duration? = nil, send: Duration? = nil)
    -> TextStreamTimeouts
  {
    var copy = self
    if let send {
      copy.firstFragmentSend = send
      copy.laterFragmentSend = send
    }
    if let firstPacket { copy.firstPacket = firstPacket }
    if let interFragment { copy.interFragment = interFragment }
    return copy
  }
}
