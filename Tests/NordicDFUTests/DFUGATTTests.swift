import BeaconCore
import Testing

@testable import NordicDFU

@Suite(.timeLimit(.minutes(2))) struct DFUGATTTests {
  /// docs/protocols/nordic-dfu.md §2.1: the control point and packet characteristics differ only in their first group.
  @Test func secureDFUUUIDsMatchTheSpec() {
    #expect(DFUGATT.service.shortValue == 0xFE59)
    #expect(DFUGATT.controlPoint.description == "8EC90001-F315-4F60-9FB8-838830DAEA50")
    #expect(DFUGATT.packet.description == "8EC90002-F315-4F60-9FB8-838830DAEA50")
    #expect(DFUGATT.buttonlessWithoutBonds.bytes[3] == 0x03)
  }
}
