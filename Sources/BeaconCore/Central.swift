/// What a scan asks of a `Central`.
public struct ScanParameters: Sendable, Hashable {
  /// Active scanning sends SCAN_REQ and so also receives scan responses (names, KKM 0x2080 data).
  public var active: Bool
  /// LE scan interval and window in units of 0.625 ms (Core Vol 4 Part E §7.8.10).
  public var interval: UInt16
  public var window: UInt16

  public init(active: Bool = true, interval: UInt16 = 0x0010, window: UInt16 = 0x0010) {
    self.active = active
    self.interval = interval
    self.window = window
  }
}

/// The host side of the radio, live (BlueZ) or simulated: it scans and it opens ATT links.
/// Everything above this protocol is the same code for real hardware and for the simulator.
public protocol Central: Sendable {
  /// A human name for logs: `hci0`, `sim`, `sim:fleet.json`.
  var name: String { get }

  /// Advertising reports until the consumer stops iterating (or cancels its task). Errors (adapter gone,
  /// permission) end the stream by throwing.
  func scan(_ parameters: ScanParameters) -> AsyncThrowingStream<AdvertisingReport, any Error>

  /// Opens an LE link to the device and returns the ATT bearer on it (L2CAP CID 4).
  func connect(to address: BluetoothAddress, type: AddressType, timeout: Duration) async throws -> any ATTBearer

  /// Returns once every scan this central runs is switched off where it runs: a live adapter's scan
  /// outlives its stream's consumer by a controller or kernel round trip, and a process that exits before
  /// would leave it on. Default: nothing to wait for.
  func stopScans() async

  /// Whether scans take real time (a live radio, a paced simulator) — so a scan's length is also a
  /// wall-clock limit — or run on simulated time only (an unpaced simulator, in tests). Default: true.
  var scansInRealTime: Bool { get }
}

extension Central {
  public func stopScans() async {}
  public var scansInRealTime: Bool { true }
}

/// A connected, ordered, message-preserving channel carrying whole ATT PDUs (an L2CAP LE socket on CID 4,
/// or one end of a `socketpair(AF_UNIX, SOCK_SEQPACKET)` in the simulator).
public protocol ATTBearer: AnyObject, Sendable {
  /// The peer, for logs and errors.
  var peer: BluetoothAddress { get }

  /// Sends one PDU. Throws when the link is gone.
  func send(_ pdu: [UInt8]) async throws

  /// Every PDU the peer sends, in order. The stream finishes (throwing `LinkError`) when the link drops.
  /// It may be iterated once.
  var incoming: AsyncThrowingStream<[UInt8], any Error> { get }

  /// Closes the link. Idempotent.
  func close() async

  /// Closes this end and leaves the link itself for the peer to end: for a device about to reset on its own
  /// (a DFU bootloader that activated an update, an application told to jump to its bootloader), so that the
  /// two ends do not both tear the link down at once. Where `close()` ends only this end, the same.
  func closeLeavingLink() async
}

extension ATTBearer {
  public func closeLeavingLink() async { await close() }
}

/// Why a link ended or could not be made. Shared by live and simulated links so callers handle one type.
public struct LinkError: Error, Sendable, Hashable, CustomStringConvertible {
  public enum Code: String, Sendable {
    case connectTimeout = "connect timeout"
    case connectFailed = "connect failed"
    case disconnected = "disconnected"
    case closed = "closed locally"
    case unknownDevice = "no such device"
    case tooManyLinks = "too many links on this adapter"
    case notConnectable = "not connectable"
  }

  public var code: Code
  public var peer: BluetoothAddress?
  public var detail: String

  public init(_ code: Code, peer: BluetoothAddress? = nil, detail: String = "") {
    self.code = code
    self.peer = peer
    self.detail = detail
  }

  public var description: String {
    var s = code.rawValue
    if let peer { s += " (\(peer))" }
    if !detail.isEmpty { s += ": \(detail)" }
    return s
  }
}
