import BeaconCore
import JSON
import KBeacon

/// What a simulated KBeacon keeps for one link only (docs/protocols/kbeacon.md §4, §5): forgotten at each
/// new connection, so a client must authenticate and reassemble again after a reconnect.
extension SimulatedKBeaconDevice {
  /// Per-connection state, reset by `connected(mtu:)`.
  struct LinkState: Sendable {
    var mtu: Int
    var auth: DeviceAuthenticator?
    var authenticated = false
    var assembler = RequestAssembler()
    /// Report messages waiting to go out and the one in flight; each fragment waits for the app's ack.
    var sender: ReportSender?
    var queue: [Outgoing] = []
    /// The length of the request being answered: the seq of every ack that answers it.
    var received: UInt16 = 0
    var ring = KBeaconRing()
  }

  enum Outgoing: Sendable {
    case frame([UInt8])
    case report([UInt8], FrameHeader.DataType)
  }
}
