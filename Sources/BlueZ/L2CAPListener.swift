import BeaconCore
import CBlueZ
import Glibc
import OwnThreads

/// A listening L2CAP LE socket on the ATT channel (CID 4) of one adapter, for the simulator's server mode
/// in the VM tier (docs/protocols/vm-e2e.md). While bluetoothd runs it owns the ATT server on that adapter and
/// this listener will not see connections (docs/protocols/linux-ble.md §4 item 4): serve on adapters bluetoothd does
/// not manage.
public final class L2CAPListener: Sendable {
  public let adapter: Adapter
  private let handle: SocketHandle

  public init(adapter: Adapter, security: L2CAPSecurity = .low, backlog: Int32 = 8) throws {
    self.adapter = adapter
    handle = try L2CAPConnector.makeSocket(adapter: adapter, security: security)
    try handle.withDescriptor("listen(L2CAP)") { fd in
      guard listen(fd, backlog) == 0 else { throw BlueZError.current("listen(L2CAP LE, CID 4)", adapter: adapter.name) }
    }
  }

  deinit { close() }

  /// The next incoming link, waited for on a dedicated thread; nil timeout waits until `close()`.
  /// Cancelling the calling task closes the listener.
  public func accept(timeout: Duration? = nil) async throws -> L2CAPConnection {
    let handle = handle
    let adapter = adapter
    return try await withTaskCancellationHandler {
      try await OwnThread.run("l2cap-accept") {
        while true {
          switch handle.wait(for: Int16(POLLIN), timeout: timeout) {
          case .closed: throw LinkError(.closed, detail: "listener on \(adapter.name) closed")
          case .timedOut: throw ControllerCommandError.timeout(command: "L2CAP accept", adapter: adapter.name)
          case .ready: break
          }
          var peer = bdaddr_t()
          var peerType: UInt8 = 0
          let (fd, code) = try handle.withDescriptor("accept(L2CAP)") { listening -> (Int32, Int32) in
            let fd = Interrupted.retry { bp_l2cap_accept(listening, &peer, &peerType) }
            return (fd, fd < 0 ? errno : 0)
          }
          if fd < 0 {
            if code == EAGAIN { continue }
            throw BlueZError(errno: code, call: "accept(L2CAP)", adapter: adapter.name)
          }
          let connection = try SocketHandle(adopting: fd, adapter: adapter.name)
          return L2CAPConnection(
            handle: connection, adapter: adapter.name, peer: address(peer),
            peerType: AddressType(rawValue: peerType) ?? .public)
        }
      }
    } onCancel: {
      handle.close()
    }
  }

  /// Stops listening. Idempotent.
  public func close() { handle.close() }
}
