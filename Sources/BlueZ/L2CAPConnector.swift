import BeaconCore
import CBlueZ
import Glibc
import OwnThreads

/// Outgoing L2CAP LE connections on the ATT channel, the pattern of BlueZ's btgatt-client
/// (docs/protocols/linux-ble.md §1): socket(SEQPACKET, L2CAP), bind to the adapter's address as LE public on CID 4,
/// BT_SECURITY, then connect to the peer (LE public or random) on CID 4. The connect is non-blocking and
/// waited for with poll on a dedicated thread, so a timeout or a cancelled task closes the socket, which
/// makes the kernel abandon the attempt. At most one attempt per adapter runs at a time
/// (docs/protocols/linux-ble.md §4 item 5; `ConnectLocks`).
public enum L2CAPConnector {
  /// Opens the link, or throws `LinkError` (`.connectTimeout`, `.connectFailed`) for the peer, or
  /// `BlueZError` when the socket itself cannot be made (no Bluetooth, no permission).
  public static func connect(
    adapter: Adapter, to peer: BluetoothAddress, type: AddressType, security: L2CAPSecurity = .low,
    timeout: Duration
  ) async throws -> L2CAPConnection {
    try await ConnectLocks.shared.withLock(adapter.name) {
      let handle = try makeSocket(adapter: adapter, security: security)
      return try await withTaskCancellationHandler {
        try await OwnThread.run("l2cap-connect") {
          try connect(handle, adapter: adapter, peer: peer, type: type, timeout: timeout)
        }
      } onCancel: {
        handle.close()
      }
    }
  }

  /// A non-blocking SEQPACKET L2CAP socket bound to the adapter's address on CID 4 with `security`.
  static func makeSocket(adapter: Adapter, security: L2CAPSecurity) throws -> SocketHandle {
    let fd = bp_bt_socket(Int32(SOCK_SEQPACKET.rawValue), BTPROTO_L2CAP)
    guard fd >= 0 else { throw BlueZError.current("socket(AF_BLUETOOTH, BTPROTO_L2CAP)", adapter: adapter.name) }
    let handle = try SocketHandle(adopting: fd, adapter: adapter.name)
    try handle.withDescriptor("bind(L2CAP)") { fd in
      var source = bdaddr(adapter.address)
      guard bp_l2cap_bind_le(fd, &source, AddressType.public.rawValue, bp_att_cid) == 0 else {
        throw BlueZError.current("bind(L2CAP LE, CID 4)", adapter: adapter.name)
      }
      guard bp_set_security(fd, security.rawValue) == 0 else {
        throw BlueZError.current("setsockopt(BT_SECURITY)", adapter: adapter.name)
      }
    }
    return handle
  }

  /// Starts the connect and waits for it on the calling (dedicated) thread.
  private static func connect(
    _ handle: SocketHandle, adapter: Adapter, peer: BluetoothAddress, type: AddressType, timeout: Duration
  ) throws -> L2CAPConnection {
    do {
      let started = try handle.withDescriptor("connect(L2CAP)") { fd -> Int32 in
        var destination = bdaddr(peer)
        return bp_l2cap_connect_le(fd, &destination, type.rawValue, bp_att_cid) == 0 ? 0 : errno
      }
      guard started == 0 || started == EINPROGRESS || started == EAGAIN else {
        throw failure(started, peer: peer)
      }
      if started != 0 {
        switch handle.wait(for: Int16(POLLOUT), timeout: timeout) {
        case .closed: throw LinkError(.closed, peer: peer, detail: "connect cancelled")
        case .timedOut: throw LinkError(.connectTimeout, peer: peer, detail: "no connection after \(timeout)")
        case .ready: break
        }
        let result = try handle.withDescriptor("getsockopt(SO_ERROR)") { fd -> Int32 in
          var value: Int32 = 0
          var length = socklen_t(MemoryLayout<Int32>.size)
          return getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length) == 0 ? value : errno
        }
        guard result == 0 else { throw failure(result, peer: peer) }
      }
      return L2CAPConnection(handle: handle, adapter: adapter.name, peer: peer, peerType: type)
    } catch {
      handle.close()
      throw error
    }
  }

  /// Socket-level permission/adapter errors stay `BlueZError`; the rest are the peer's `LinkError`.
  static func failure(_ code: Int32, peer: BluetoothAddress) -> any Error {
    switch code {
    case EPERM, EACCES, ENETDOWN, ENODEV, EAFNOSUPPORT, EBUSY:
      return BlueZError(errno: code, call: "connect(L2CAP LE)")
    case ETIMEDOUT:
      return LinkError(.connectTimeout, peer: peer, detail: ErrnoText.message(code))
    case EMLINK:
      // The kernel's bt_to_errno maps HCI status 0x09 Connection Limit Exceeded (and 0x0A) to EMLINK: the
      // controller holds every link it can. A campaign waits for one of its links to close.
      return LinkError(
        .tooManyLinks, peer: peer, detail: "the controller refused another link (Connection Limit Exceeded)")
    default:
      return LinkError(.connectFailed, peer: peer, detail: ErrnoText.message(code))
    }
  }
}
