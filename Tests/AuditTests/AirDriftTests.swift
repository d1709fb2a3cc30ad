import BeaconCore
import Foundation
import Profiles
import Testing

@testable import Audit

/// Drift seen on the air, from advertising bytes: iBeacon E2C56DB5-…/100/7 at −59 dBm, a name, connectable
/// or not, reports every `gapSeconds`.
@Suite(.timeLimit(.minutes(2))) struct AirDriftTests {
  static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"

  static func record(
    major: UInt16 = 100, minor: UInt16 = 7, name: String? = "aisle-07", connectable: Bool = true,
    reports: Int = 5, gapSeconds: Double = 1
  ) -> DeviceRecord {
    let frame =
      [0x4C, 0x00, 0x02, 0x15] + Hex.decode(uuid.replacingOccurrences(of: "-", with: ""))!
      + [UInt8(major >> 8), UInt8(major & 0xFF), UInt8(minor >> 8), UInt8(minor & 0xFF), 0xC5]
    let data = ADEncoder.flags() + ADEncoder.structure(type: 0xFF, payload: frame)
    let kind: AdvertisingReport.Kind = connectable ? .connectable : .nonConnectable
    let report = AdvertisingReport(
      address: BluetoothAddress("DD:34:02:06:D1:07")!, addressType: .public, kind: kind, rssi: -60, data: data)
    var record = DeviceRecord(report: report, decoded: DecodedAdvertisement(data), at: 0)
    for i in 1..<reports {
      record.absorb(report: report, decoded: DecodedAdvertisement(data), at: Double(i) * gapSeconds)
    }
    if let name {
      let response = AdvertisingReport(
        address: report.address, addressType: .public, kind: .scanResponse, rssi: -60,
        data: ADEncoder.localName(name))
      record.absorb(report: response, decoded: DecodedAdvertisement(response.data), at: 0.01)
    }
    return record
  }

  static func desired(major: Int = 100, name: String = "aisle-07", conn: Int = 1, periodMs: Double = 1000)
    -> DeviceConfigView
  {
    DeviceConfigView(
      common: ["name": .text(name)],
      slots: [
        0: [
          "slot": .integer(0), "type": .integer(5), "uuid": .text(uuid), "majorID": .integer(major),
          "minorID": .integer(7), "conn": .integer(conn), "advPrd": .number(periodMs),
        ]
      ])
  }

  @Test func aDeviceAdvertisingWhatItsProfileWantsHasNoDrift() {
    #expect(AirDrift().drift(desired: Self.desired(), heard: Self.record()).isEmpty)
  }

  @Test func eachAdvertisedFieldThatDiffersIsOneDrift() {
    let drift = AirDrift().drift(desired: Self.desired(major: 50, name: "aisle-7"), heard: Self.record())
    #expect(drift.count == 2)
    #expect(
      drift.contains(AuditDrift(scope: "slot 0", key: "iBeacon.major", expected: "50", actual: "100", source: .air)))
    #expect(
      drift.contains(AuditDrift(scope: "device", key: "name", expected: "aisle-7", actual: "aisle-07", source: .air)))
  }

  @Test func aUUIDDiffersOnlyByItsDigitsNotTheirCase() {
    var want = Self.desired()
    want.slots[0]?["uuid"] = .text(Self.uuid.lowercased())
    #expect(AirDrift().drift(desired: want, heard: Self.record()).isEmpty)
  }

  @Test func aFrameThatIsNotHeardIsDriftAndATriggerOnlySlotIsNotExpected() {
    var want = Self.desired()
    want.slots[1] = [
      "slot": .integer(1), "type": .integer(4), "url": .text("https://example.com"), "conn": .integer(1),
    ]
    #expect(
      AirDrift().drift(desired: want, heard: Self.record())
        == [AuditDrift(scope: "slot 1", key: "eddystoneURL", expected: "advertised", actual: nil, source: .air)])
    want.slots[1]?["trAdv"] = .integer(1)
    #expect(AirDrift().drift(desired: want, heard: Self.record()).isEmpty)
  }

  @Test func connectableIsComparedWithTheAdvertisingPDU() {
    let drift = AirDrift().drift(desired: Self.desired(conn: 1), heard: Self.record(connectable: false))
    #expect(drift == [AuditDrift(scope: "device", key: "connectable", expected: "true", actual: "false", source: .air)])
  }

  @Test func onlyAnIntervalFourTimesTooSlowFromEnoughReportsIsDrift() {
    // Wanted every 1000 ms; heard every 5 s: drift. Every 3 s (missed reports look like this): not drift.
    #expect(
      AirDrift().drift(desired: Self.desired(), heard: Self.record(gapSeconds: 5)).map(\.key) == [
        "advertising interval"
      ])
    #expect(AirDrift().drift(desired: Self.desired(), heard: Self.record(gapSeconds: 3)).isEmpty)
    #expect(AirDrift().drift(desired: Self.desired(), heard: Self.record(reports: 3, gapSeconds: 9)).isEmpty)
  }

  @Test func aMissingNameIsDriftOnlyWhenAScanResponseCameWithoutOne() {
    #expect(AirDrift().drift(desired: Self.desired(), heard: Self.record(name: nil)).isEmpty)
  }
}
