import BeaconCore
import CBlueZ
import Glibc

/// The controller's answer to a command: Command Complete (with return parameters) or Command Status.
public enum HCICommandReply: Sendable, Hashable {
  case complete(CommandComplete)
  case status(CommandStatus)

  /// The status octet (first return parameter of a Command Complete).
  public var status: HCIStatus {
    switch self {
    case .complete(let c): c.status ?? .success
    case .status(let s): s.status
    }
  }
}

/// A raw HCI socket (HCI_CHANNEL_RAW) bound to one adapter, with an event filter passing every event
/// (Core Vol 4 Part E §5.4.4). A dedicated reader thread decodes events; replies to commands go to the
/// caller awaiting `send`, and every event also goes to the `events()` subscribers. Needs CAP_NET_RAW (and
/// CAP_NET_ADMIN for LE scanning, docs/protocols/linux-ble.md §4 item 3) and an adapter that is up.
///
/// Because the kernel (and bluetoothd) share a raw-channel controller, a Command Complete for the same
/// opcode sent by another host at the same moment could be taken as ours [I: accepted; commands are
/// matched by opcode, oldest waiter first].
public final class HCISocket: Sendable {
  public let adapter: String
  private let handle: SocketHandle
  private let replies = PendingReplies<UInt16, HCICommandReply>()
  private let subscribers = EventSubscribers<HCIEvent>()

  /// Opens and binds the socket to adapter `index` (0 for hci0) and starts its reader thread.
  public convenience init(adapterIndex index: UInt16, name: String) throws {
    let fd = bp_bt_socket(Int32(SOCK_RAW.rawValue), BTPROTO_HCI)
    guard fd >= 0 else { throw BlueZError.current("socket(AF_BLUETOOTH, BTPROTO_HCI)", adapter: name) }
    guard bp_hci_bind(fd, index, bp_hci_channel_raw) == 0 else {
      let error = BlueZError.current("bind(HCI_CHANNEL_RAW)", adapter: name)
      Glibc.close(fd)
      throw error
    }
    guard bp_hci_set_filter_events(fd) == 0 else {
      let error = BlueZError.current("setsockopt(HCI_FILTER)", adapter: name)
      Glibc.close(fd)
      throw error
    }
    try self.init(adopting: fd, name: name)
  }

  /// Takes over an already bound descriptor that carries H4 packets (indicator, header, parameters);
  /// tests pass one end of a SOCK_SEQPACKET socketpair with a fake controller on the other.
  init(adopting fd: Int32, name: String) throws {
    adapter = name
    handle = try SocketHandle(adopting: fd, adapter: name)
    startReader()
  }

  /// Opens the socket on the adapter called `name`.
  public convenience init(adapter: Adapter) throws {
    try self.init(adapterIndex: adapter.index, name: adapter.name)
  }

  deinit { close() }

  /// Sends `command` and waits for its Command Complete or Command Status.
  public func send(_ command: HCICommand, timeout: Duration = .seconds(3)) async throws -> HCICommandReply {
    let adapter = adapter
    return try await replies.wait(
      for: command.opcode.rawValue, timeout: timeout,
      timeoutError: { ControllerCommandError.timeout(command: command.opcode.description, adapter: adapter) },
      send: { try handle.send(command.packet, call: command.opcode.description) })
  }

  /// Sends `command` and returns its Command Complete; a non-success status throws
  /// `ControllerCommandError.hci`. Statuses in `ignoring` count as success: the disable path of scanning and
  /// advertising ignores Command Disallowed (already off, docs/protocols/linux-ble.md §4 item 2) and, for extended
  /// advertising, Unknown Advertising Identifier (the set was never created).
  @discardableResult
  public func run(_ command: HCICommand, ignoring: Set<HCIStatus> = [], timeout: Duration = .seconds(3)) async throws
    -> [UInt8]
  {
    let reply = try await send(command, timeout: timeout)
    let status = reply.status
    guard status == .success || ignoring.contains(status) else {
      throw ControllerCommandError.hci(command.opcode, status, adapter: adapter)
    }
    if case .complete(let complete) = reply { return complete.returnParameters }
    return []
  }

  /// Every event from now until the socket closes or the consumer stops.
  public func events() -> AsyncStream<HCIEvent> { subscribers.subscribe() }

  /// Closes the socket (idempotent): pending commands fail, event streams finish.
  public func close() {
    handle.close()
  }

  private func startReader() {
    SocketReader(
      handle: handle, replies: replies, subscribers: subscribers, capacity: 260, call: "read(HCI)",
      decode: { packet in
        guard let event = try? HCIEvent(packet: packet) else { return nil }
        switch event {
        case .commandComplete(let c): return (event, (c.opcode.rawValue, .complete(c)))
        case .commandStatus(let s): return (event, (s.opcode.rawValue, .status(s)))
        default: return (event, nil)
        }
      }
    ).start("hci-reader-\(adapter)", closed: BlueZError(errno: EBADF, call: "HCI socket closed", adapter: adapter))
  }
}
