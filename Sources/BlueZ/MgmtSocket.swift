import BeaconCore
import CBlueZ
import Glibc

/// A socket on the kernel's Bluetooth management channel (HCI_CHANNEL_CONTROL, BlueZ `doc/mgmt-api.txt`),
/// the interface bluetoothd itself uses; it coexists with a running bluetoothd. Reading is open to
/// everyone; commands that change state (power, discovery) need CAP_NET_ADMIN and otherwise fail with
/// Permission Denied. A dedicated reader thread decodes events; replies go to the caller awaiting `send`,
/// and every event also goes to the `events()` subscribers.
public final class MgmtSocket: Sendable {
  struct ReplyKey: Hashable, Sendable {
    var opcode: UInt16
    var index: UInt16
  }

  /// A finished command: its status and return parameters.
  public struct Reply: Sendable, Hashable {
    public var status: MgmtStatus
    public var returnParameters: [UInt8]
  }

  private let handle: SocketHandle
  private let replies = PendingReplies<ReplyKey, Reply>()
  private let subscribers = EventSubscribers<MgmtEvent>()

  public convenience init() throws {
    let fd = bp_bt_socket(Int32(SOCK_RAW.rawValue), BTPROTO_HCI)
    guard fd >= 0 else { throw BlueZError.current("socket(AF_BLUETOOTH, BTPROTO_HCI)") }
    guard bp_hci_bind(fd, bp_hci_dev_none, bp_hci_channel_control) == 0 else {
      let error = BlueZError.current("bind(HCI_CHANNEL_CONTROL)")
      Glibc.close(fd)
      throw error
    }
    try self.init(adopting: fd)
  }

  /// Takes over a descriptor that carries mgmt packets (tests: one end of a SOCK_SEQPACKET socketpair).
  init(adopting fd: Int32) throws {
    handle = try SocketHandle(adopting: fd, adapter: nil)
    startReader()
  }

  deinit { close() }

  /// Sends `command` and waits for its Command Complete or Command Status.
  public func send(_ command: MgmtCommand, timeout: Duration = .seconds(5)) async throws -> Reply {
    let name = Self.adapterName(command.index)
    return try await replies.wait(
      for: ReplyKey(opcode: command.opcode.rawValue, index: command.index), timeout: timeout,
      timeoutError: { ControllerCommandError.timeout(command: command.opcode.description, adapter: name) },
      send: { try handle.send(command.packet, call: command.opcode.description) })
  }

  /// Sends `command` and returns its return parameters; a status in neither `.success` nor `accepting`
  /// throws `ControllerCommandError.mgmt`.
  @discardableResult
  public func run(_ command: MgmtCommand, accepting: Set<MgmtStatus> = [], timeout: Duration = .seconds(5))
    async throws -> Reply
  {
    let reply = try await send(command, timeout: timeout)
    guard reply.status == .success || accepting.contains(reply.status) else {
      throw ControllerCommandError.mgmt(command.opcode, reply.status, adapter: Self.adapterName(command.index))
    }
    return reply
  }

  /// Every event from now until the socket closes or the consumer stops.
  public func events() -> AsyncStream<MgmtEvent> { subscribers.subscribe() }

  /// Closes the socket (idempotent).
  public func close() { handle.close() }

  /// `hci0` for index 0; `mgmt` for the non-controller index.
  static func adapterName(_ index: UInt16) -> String {
    index == MgmtCommand.nonController ? "mgmt" : "hci\(index)"
  }

  private func startReader() {
    SocketReader(
      handle: handle, replies: replies, subscribers: subscribers, capacity: 6 + 65_535, call: "read(mgmt)",
      decode: { packet in
        guard let event = try? MgmtEvent(packet: packet) else { return nil }
        func key(_ opcode: MgmtOpcode) -> ReplyKey { ReplyKey(opcode: opcode.rawValue, index: event.index) }
        switch event.payload {
        case .commandComplete(let opcode, let status, let parameters):
          return (event, (key(opcode), Reply(status: status, returnParameters: parameters)))
        case .commandStatus(let opcode, let status):
          return (event, (key(opcode), Reply(status: status, returnParameters: [])))
        default: return (event, nil)
        }
      }
    ).start("mgmt-reader", closed: BlueZError(errno: EBADF, call: "mgmt socket closed"))
  }
}
