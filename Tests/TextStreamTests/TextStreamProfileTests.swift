import BeaconCore
import Testing

@testable import TextStream

/// Detection by service UUID, after discovery and from advertising.
@Suite(.timeLimit(.minutes(5))) struct TextStreamProfileTests {
  func database(_ profile: TextStreamProfile, withTx: Bool = true) -> GATTDatabase {
    var characteristics = [
      GATTCharacteristic(
        uuid: profile.rx, properties: [.write], declarationHandle: 0x10, valueHandle: 0x11, endHandle: 0x11)
    ]
    if withTx {
      characteristics.append(
        GATTCharacteristic(
          uuid: profile.tx, properties: [.notify], declarationHandle: 0x12, valueHandle: 0x13, endHandle: 0x14))
    }
    return GATTDatabase(services: [
      GATTService(uuid: BluetoothUUID(0x1800), startHandle: 1, endHandle: 7),
      GATTService(uuid: profile.service, startHandle: 0x0F, endHandle: 0x14, characteristics: characteristics),
    ])
  }

  @Test(arguments: TextStreamProfile.known)
  func detectsEveryKnownProfile(profile: TextStreamProfile) {
    #expect(TextStreamProfile.detect(in: database(profile)) == profile)
    #expect(TextStreamProfile.matching(advertised: [BluetoothUUID(0xFEAA), profile.service]) == profile)
    #expect(TextStreamProfile.named(profile.id.uppercased()) == profile)
  }

  @Test func serviceWithoutTxIsNotDetected() {
    #expect(TextStreamProfile.detect(in: database(.zhaga, withTx: false)) == nil)
  }

  /// The table of docs/protocols/text-stream.md: terminators, packet sizes, extras.
  @Test func table() {
    #expect(TextStreamProfile.zhaga.terminator == .cr)
    #expect(TextStreamProfile.zhaga.extra(.event) == BluetoothUUID("3cc30004-cb91-4947-bd12-80d2f0535a30"))
    #expect(TextStreamProfile.ackme.extra(.setMode) == BluetoothUUID("20b9794f-da1a-4d14-8014-a0fb9cefb2f7"))
    #expect(TextStreamProfile.ackme.packetSize == 15)
    #expect(TextStreamProfile.tertiumLegacy.packetSize == 20)
    #expect(TextStreamProfile.nordicUART.packetSize == nil)
    #expect(TextStreamProfile.known.count == 7)
    #expect(Set(TextStreamProfile.known.map(\.service)).count == 7)
    #expect(TextStreamTimeouts.library.firstPacket == .seconds(2))
    #expect(TextStreamTimeouts.library.interFragment == .milliseconds(200))
  }
}
