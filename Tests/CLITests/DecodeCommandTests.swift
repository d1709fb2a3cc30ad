import ArgumentParser
import BeaconCore
import Foundation
import Testing

@testable import BeaconProvisionCLI

/// `decode HEX` run in process.
@Suite(.timeLimit(.minutes(5))) struct DecodeCommandTests {
  static func output(_ arguments: [String]) throws -> String {
    try (try DecodeCommand.parseAsRoot(arguments) as! DecodeCommand).output()
  }

  @Test func decodesAnIBeacon() throws {
    // 02 01 06 | 1A FF 4C 00 02 15 | UUID E2C56DB5-… | major 7 | minor 1 | −59 dBm
    let json = try Self.output(["0201061AFF4C000215E2C56DB5DFFB48D2B060D0F5A71096E000070001C5"])
    let decoded = try JSONDecoder().decode(DecodedAdvertisement.self, from: Data(json.utf8))
    #expect(
      decoded.frames == [
        .iBeacon(
          IBeaconFrame(
            uuid: ProximityUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!, major: 7, minor: 1, measuredPower: -59))
      ])
    #expect(json.contains(#""type": "iBeacon""#) && json.contains(#""measuredPower": -59"#))
  }

  @Test func acceptsSeparatedBytesAndShowsMalformedParts() throws {
    // "12 16 AA FE 21 01 0F …" split over two arguments; then 05 FF 53 = a structure cut short.
    let json = try Self.output(["12 16 AA FE 21 01 0F 0E 07 19 2A", "22 4F FF FC FF EC 03 EB 05 FF 53"])
    let decoded = try JSONDecoder().decode(DecodedAdvertisement.self, from: Data(json.utf8))
    guard case .kSensor(let f)? = decoded.frames.first else {
      Issue.record("\(json)")
      return
    }
    #expect(f.batteryMillivolts == 3591)
    #expect(
      decoded.elements.last
        == .malformed(type: 0xFF, payload: RawBytes([0x53]), issue: .lengthPastEnd(declared: 5, available: 2)))
  }

  @Test func rejectsNonHex() {
    #expect(throws: CLIFailure.self) { try Self.output(["ZZ"]) }
    #expect(throws: CLIFailure.self) { try Self.output(["ABC"]) }
  }
}
