import BeaconCore
import Testing

@testable import KBeacon

@Suite(.timeLimit(.minutes(1))) struct KBeaconGATTTests {
  /// docs/protocols/kbeacon.md §2: the service and characteristics are 16-bit UUIDs on the Base UUID.
  @Test func configServiceUUIDsMatchTheSpec() {
    #expect(KBeaconGATT.service == BluetoothUUID("0000FEA0-0000-1000-8000-00805F9B34FB"))
    #expect(KBeaconGATT.write.attBytes == [0xA1, 0xFE])
    #expect(KBeaconGATT.notify.attBytes == [0xA2, 0xFE])
    #expect(KBeaconGATT.indicate.attBytes == [0xA3, 0xFE])
  }
}
