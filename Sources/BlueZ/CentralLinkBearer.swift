import BeaconCore
import Synchronization

/// The bearer of a link this gateway opened (`BlueZCentral.connect`): the L2CAP socket's
/// `FileDescriptorBearer`, whose `close()` also ends the LE link itself (`L2CAPConnection.disconnectLink`, a
/// mgmt Disconnect) once the socket is closed.
///
/// Closing the ATT socket alone leaves the kernel to drop the idle link about two seconds later (its
/// `hci_conn` disconnect timeout). On a fleet that is a link slot of the controller held for nothing after
/// every device, and a link that overlaps the next device's: a campaign reading one device after another
/// holds two links at once without meaning to. Ending the link when the device is done frees the slot at
/// once [I: a gateway's own links only; a link another program holds to the same device ends with ours,
/// which is what a device that resets does to it too].
///
/// Best effort: without the management channel or CAP_NET_ADMIN the kernel ends the link as before, and a
/// link already down (the device dropped it, as a KBeacon entering its bootloader does) is no error. The
/// disconnect waits at most two seconds for the controller.
final class CentralLinkBearer: ATTBearer {
  let socket: FileDescriptorBearer
  private let connection: L2CAPConnection
  private let ended = Atomic<Bool>(false)

  init(socket: FileDescriptorBearer, connection: L2CAPConnection) {
    self.socket = socket
    self.connection = connection
  }

  var peer: BluetoothAddress { socket.peer }

  var incoming: AsyncThrowingStream<[UInt8], any Error> { socket.incoming }

  func send(_ pdu: [UInt8]) async throws { try await socket.send(pdu) }

  func close() async {
    await socket.close()
    guard !ended.exchange(true, ordering: .relaxed) else { return }
    try? await connection.disconnectLink(timeout: .seconds(2))
  }

  /// The socket only: the device ends the link (or the kernel does when it is idle).
  func closeLeavingLink() async {
    ended.store(true, ordering: .relaxed)
    await socket.close()
  }
}
