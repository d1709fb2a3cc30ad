import Foundation
import Testing

@testable import BeaconCore

@Suite(.timeLimit(.minutes(1))) struct AddressAndUUIDTests {
  @Test func addressParsesPrintsAndReversesForTheWire() throws {
    let a = try #require(BluetoothAddress("dd:34:02:06:d0:6c"))
    #expect(a.description == "DD:34:02:06:D0:6C")
    #expect(a.bytes == [0xDD, 0x34, 0x02, 0x06, 0xD0, 0x6C])
    #expect(a.littleEndianBytes == [0x6C, 0xD0, 0x06, 0x02, 0x34, 0xDD])
    #expect(BluetoothAddress(littleEndianBytes: a.littleEndianBytes) == a)
    #expect(BluetoothAddress("DD340206D06C") == a)
    #expect(a.adding(1).description == "DD:34:02:06:D0:6D")
    #expect(BluetoothAddress("FF:FF:FF:FF:FF:FF")!.adding(1).description == "00:00:00:00:00:00")
  }

  @Test(arguments: ["", "DD:34:02:06:D0", "DD:34:02:06:D0:6C:00", "GG:34:02:06:D0:6C", "D:D34:02:06:D0:6C"])
  func malformedAddressesAreRejected(_ text: String) {
    #expect(BluetoothAddress(text) == nil)
  }

  @Test func shortUUIDEqualsItsBaseExpansion() throws {
    let short = BluetoothUUID(0xFEA1)
    let long = try #require(BluetoothUUID("0000FEA1-0000-1000-8000-00805F9B34FB"))
    #expect(short == long)
    #expect(long.shortValue == 0xFEA1)
    #expect(long.description == "FEA1")
    #expect(long.attBytes == [0xA1, 0xFE])
    #expect(BluetoothUUID(littleEndian: [0xA1, 0xFE]) == short)
  }

  @Test func vendorUUIDKeepsAllBytesAndPrintsLong() throws {
    let cp = try #require(BluetoothUUID("8EC90001-F315-4F60-9FB8-838830DAEA50"))
    #expect(cp.shortValue == nil)
    #expect(cp.description == "8EC90001-F315-4F60-9FB8-838830DAEA50")
    #expect(cp.attBytes.first == 0x50 && cp.attBytes.last == 0x8E)
    #expect(BluetoothUUID(littleEndian: cp.attBytes) == cp)
  }

  @Test func hexRoundTripsAndRejectsOddInput() {
    #expect(Hex.decode("0x02 01:06") == [0x02, 0x01, 0x06])
    #expect(Hex.encode([0xAB, 0x01]) == "AB01")
    #expect(Hex.decode("ABC") == nil)
    #expect(Hex.decode("zz") == nil)
  }

  @Test func addressTypesAreWordsInJSONAndNumbersAreStillRead() throws {
    #expect(
      String(decoding: try JSONEncoder().encode([AddressType.public, .random]), as: UTF8.self)
        == #"["public","random"]"#)
    let decoded = try JSONDecoder().decode([AddressType].self, from: Data(#"["random", 1, 2, "public"]"#.utf8))
    #expect(decoded == [.random, .public, .random, .public])
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode([AddressType].self, from: Data(#"["static"]"#.utf8))
    }
    #expect(throws: DecodingError.self) { try JSONDecoder().decode([AddressType].self, from: Data("[3]".utf8)) }
  }
}
