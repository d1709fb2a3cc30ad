import BeaconCore
import Glibc
import Testing

@testable import BlueZ

/// The kernel's bt_to_errno (net/bluetooth/lib.c) turns HCI status 0x09 Connection Limit Exceeded into
/// EMLINK on the L2CAP socket: the live central reports it as the adapter's link limit, the same
/// `LinkError` the simulator gives, so the campaign waits for a free link instead of failing the device.
@Suite("Link limit errno", .timeLimit(.minutes(1))) struct LinkLimitErrnoTests {
  @Test func connectionLimitExceededIsTheAdaptersLinkLimit() {
    let peer = BluetoothAddress("DD:34:02:06:D1:01")!
    #expect((L2CAPConnector.failure(EMLINK, peer: peer) as? LinkError)?.code == .tooManyLinks)
  }
}
