import BeaconCore
import CBlueZ
import Glibc
import OwnThreads

/// How much link security an L2CAP LE socket asks for (`BT_SECURITY`, bluetooth.h). beacon-provision
/// uses `.low` (no pairing): KBeacon and Nordic DFU authenticate in the application layer.
public enum L2CAPSecurity: UInt8, Sendable {
  case low = 1
  case medium = 2
  case high = 3
}

/// A connected L2CAP LE socket on the ATT fixed channel (CID 4): a message-preserving SOCK_SEQPACKET
/// descriptor, non-blocking, close-on-exec. It is either used directly (`send`/`receive`, e.g. by the radio
/// debug command) or handed over to an fd-based `ATTBearer` with `takeDescriptor()`.
public final class L2CAPConnection: Sendable, CustomStringConvertible {
  public let adapter: String
  public let peer: BluetoothAddress
  public let peerType: AddressType
  private let handle: SocketHandle

  init(handle: SocketHandle, adapter: String, peer: BluetoothAddress, peerType: AddressType) {
    self.handle = handle
    self.adapter = adapter
    self.peer = peer
    self.peerType = peerType
  }

  public var description: String { "\(adapter) ↔ \(peer) (\(peerType)) CID 4" }

  /// Sends one L2CAP SDU (one ATT PDU). Non-blocking: a full send queue throws EAGAIN.
  public func send(_ bytes: [UInt8]) throws {
    try handle.send(bytes, call: "send(L2CAP)")
  }

  /// Waits (on a dedicated thread) for the next SDU. Throws `LinkError(.disconnected)` when the peer or the
  /// kernel ends the link, `LinkError(.closed)` after `close()`, and `ControllerCommandError.timeout` when
  /// `timeout` passes first (nil waits indefinitely).
  public func receive(timeout: Duration? = nil) async throws -> [UInt8] {
    let handle = handle
    let peer = peer
    let adapter = adapter
    return try await OwnThread.run("l2cap-receive") {
      while true {
        switch handle.wait(for: Int16(POLLIN), timeout: timeout) {
        case .closed: throw LinkError(.closed, peer: peer)
        case .timedOut: throw ControllerCommandError.timeout(command: "L2CAP receive", adapter: adapter)
        case .ready: break
        }
        do {
          if let packet = try handle.receive(capacity: 65_535, call: "recv(L2CAP)") { return packet }
        } catch let error as BlueZError {
          throw LinkError(.disconnected, peer: peer, detail: ErrnoText.message(error.errno))
        }
      }
    }
  }

  /// Hands the descriptor to the caller, who then owns (and must close) it; nil if already closed or taken.
  public func takeDescriptor() -> Int32? { handle.release() }

  /// Closes the socket, which disconnects the LE link if nothing else uses it. Idempotent.
  public func close() { handle.close() }

  /// Ends the LE link itself, not only this socket, as a device that resets or drops its central does: a
  /// mgmt Disconnect (BlueZ doc/mgmt-api.txt) for the peer on this adapter, which the kernel answers once
  /// the controller reports the link down. Closing an ATT socket alone leaves the kernel to end the idle
  /// link seconds later (its `hci_conn` disconnect timeout), during which the central sees neither data
  /// nor a disconnect; and a new link from the same central in that time is lost — seen in the VM tier on
  /// kernel 6.1: "Ignoring HCI_Connection_Complete for existing connection", then no ATT answers. A link
  /// already down (Not Connected) is no error. Works after `takeDescriptor()`.
  public func disconnectLink(timeout: Duration = .seconds(5)) async throws {
    let index = try Adapter.named(adapter).index
    let socket = try MgmtSocket()
    defer { socket.close() }
    try await socket.run(.disconnect(peer, type: peerType, index: index), accepting: [.notConnected], timeout: timeout)
  }
}

/// A `bdaddr_t` from an address (least significant octet first).
func bdaddr(_ address: BluetoothAddress) -> bdaddr_t {
  var result = bdaddr_t()
  withUnsafeMutableBytes(of: &result.b) { raw in
    for (i, byte) in address.littleEndianBytes.enumerated() { raw[i] = byte }
  }
  return result
}

/// The address in a `bdaddr_t`.
func address(_ raw: bdaddr_t) -> BluetoothAddress {
  withUnsafeBytes(of: raw.b) { BluetoothAddress(littleEndianBytes: Array($0))! }
}
