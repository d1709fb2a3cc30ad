import Testing

@testable import BeaconCore

/// Discovery windows, RSSI threshold, first-seen times and once-per-window frames (blukii docs/protocols/info-manager.md, "The SDK's classes"), and
/// the merging of advertising and scan-response data per address.
@Suite(.timeLimit(.minutes(1))) struct DiscoverySessionTests {
  static let origin = ContinuousClock.now
  static let a = BluetoothAddress("DD:34:02:06:D1:01")!
  static let b = BluetoothAddress("AC:23:3F:00:00:01")!

  static func report(
    _ address: BluetoothAddress, _ kind: AdvertisingReport.Kind = .connectable, rssi: Int8 = -60, at ms: Int,
    _ hex: String
  ) -> AdvertisingReport {
    AdvertisingReport(
      address: address, addressType: .public, kind: kind, rssi: rssi, data: Hex.decode(hex)!,
      timestamp: origin + .milliseconds(ms))
  }

  /// 11 16 AA FE 20 00 | 0BB8 = 3000 mV | 1700 = 23 °C | ADV_CNT `count` | SEC_CNT 10
  static func tlm(_ count: UInt8) -> String {
    "1116AAFE2000" + "0BB8" + "1700" + "000000" + Hex.encode([count]) + "0000000A"
  }

  /// 1A FF 4C 00 02 15 <UUID> 0007 0001 C5: iBeacon major 7 minor 1 at −59 dBm.
  static let iBeacon = "1AFF4C000215E2C56DB5DFFB48D2B060D0F5A71096E000070001C5"

  static func tlmCount(_ record: DeviceRecord?) -> UInt32? {
    guard case .eddystoneTLM(let f)? = record?.frame(.eddystoneTLM) else { return nil }
    return f.advertisingCount
  }

  @Test func windowsCloseWhenAReportPassesTheirEnd() {
    var session = DiscoverySession(settings: DiscoverySettings(window: .seconds(1)), origin: Self.origin)
    #expect(session.ingest(Self.report(Self.a, at: 100, Self.tlm(1))).isEmpty)
    #expect(session.ingest(Self.report(Self.b, at: 500, Self.iBeacon)).isEmpty)
    let closed = session.ingest(Self.report(Self.a, at: 1200, Self.tlm(2)))
    #expect(closed.count == 1)
    #expect(closed.first?.index == 0 && closed.first?.start == 0 && closed.first?.end == 1)
    #expect(closed.first?.devices.map(\.address) == [Self.b, Self.a].sorted())
    let last = session.finish(at: Self.origin + .milliseconds(1500))
    #expect(last.count == 1 && last.first?.index == 1 && last.first?.end == 1.5)
    // First-seen is per window: 1.2 s in window 1, while the merged record keeps 0.1 s.
    #expect(last.first?.devices.first?.firstSeen == 1.2)
    #expect(session.results.first { $0.address == Self.a }?.firstSeen == 0.1)
    #expect(session.results.count == 2)
  }

  @Test func emptyWindowsAreSkipped() {
    var session = DiscoverySession(settings: DiscoverySettings(window: .seconds(1)), origin: Self.origin)
    _ = session.ingest(Self.report(Self.a, at: 100, Self.tlm(1)))
    let closed = session.ingest(Self.report(Self.a, at: 3500, Self.tlm(2)))
    #expect(closed.map(\.index) == [0])
    #expect(session.finish(at: Self.origin + .seconds(5)).map(\.index) == [3])
    #expect(session.finish(at: Self.origin + .seconds(6)).isEmpty)
  }

  /// blukii's scanWaitDuration: windows of 1 s every 3 s; reports in the 2 s waits are dropped.
  @Test func reportsInAPauseAreDroppedAndWindowsFollowThePeriod() {
    var session = DiscoverySession(
      settings: DiscoverySettings(window: .seconds(1), pause: .seconds(2)), origin: Self.origin)
    _ = session.ingest(Self.report(Self.a, at: 100, Self.tlm(1)))
    _ = session.ingest(Self.report(Self.a, at: 1500, Self.tlm(2)))  // in the wait
    _ = session.ingest(Self.report(Self.b, at: 2900, Self.iBeacon))  // in the wait
    let closed = session.ingest(Self.report(Self.a, at: 3200, Self.tlm(3)))
    #expect(closed.map(\.index) == [0] && closed.first?.start == 0 && closed.first?.end == 1)
    #expect(closed.first?.devices.map(\.address) == [Self.a] && closed.first?.devices.first?.advertisingReports == 1)
    let last = session.finish(at: Self.origin + .seconds(5))
    #expect(last.map(\.index) == [1] && last.first?.start == 3 && last.first?.end == 4)
    #expect(Self.tlmCount(last.first?.devices.first) == 3)
    #expect(session.droppedInPause == 2)
  }

  @Test func reportsBelowTheThresholdAreDropped() {
    var session = DiscoverySession(
      settings: DiscoverySettings(window: .seconds(10), rssiThreshold: -80), origin: Self.origin)
    _ = session.ingest(Self.report(Self.a, rssi: -85, at: 100, Self.tlm(1)))
    _ = session.ingest(Self.report(Self.b, rssi: -80, at: 200, Self.iBeacon))
    _ = session.ingest(Self.report(Self.b, rssi: 127, at: 300, Self.iBeacon))  // 127 = RSSI not available: kept
    let windows = session.finish(at: Self.origin + .seconds(1))
    #expect(windows.first?.devices.map(\.address) == [Self.b])
    #expect(windows.first?.devices.first?.advertisingReports == 2)
    #expect(session.droppedBelowThreshold == 1)
  }

  @Test func eachFrameKindIsKeptOncePerWindowTheFirst() {
    var session = DiscoverySession(settings: DiscoverySettings(window: .seconds(1)), origin: Self.origin)
    _ = session.ingest(Self.report(Self.a, at: 100, Self.tlm(1)))
    _ = session.ingest(Self.report(Self.a, at: 400, Self.tlm(2)))
    _ = session.ingest(Self.report(Self.a, at: 700, Self.iBeacon))
    let first = session.ingest(Self.report(Self.a, at: 1100, Self.tlm(3)))
    #expect(Self.tlmCount(first.first?.devices.first) == 1)
    #expect(first.first?.devices.first?.frames.map(\.kind) == [.iBeacon, .eddystoneTLM])
    _ = session.ingest(Self.report(Self.a, at: 1300, Self.tlm(4)))
    let second = session.finish(at: Self.origin + .seconds(2))
    #expect(Self.tlmCount(second.first?.devices.first) == 3)
    // Across windows the newer window wins; the iBeacon of window 0 stays.
    #expect(Self.tlmCount(session.results.first) == 3)
    #expect(session.results.first?.frames.map(\.kind) == [.iBeacon, .eddystoneTLM])
  }

  @Test func goodFrameReplacesAMalformedOneInTheSameWindow() {
    var session = DiscoverySession(settings: DiscoverySettings(window: .seconds(1)), origin: Self.origin)
    _ = session.ingest(Self.report(Self.a, at: 100, "0F16AAFE20000BB8FF8000000064000E"))  // TLM cut to 12 bytes
    #expect(session.snapshot.first?.frames.first?.isMalformed == true)
    _ = session.ingest(Self.report(Self.a, at: 200, Self.tlm(9)))
    #expect(Self.tlmCount(session.snapshot.first) == 9)
  }

  @Test func advertisingAndScanResponseMerge() {
    var session = DiscoverySession(settings: DiscoverySettings(window: .seconds(1)), origin: Self.origin)
    // ADV_IND with the iBeacon, then SCAN_RSP with name "KBeacon_1201" + 0x2080 data (64 04 0001 04B1).
    _ = session.ingest(Self.report(Self.a, .connectable, rssi: -61, at: 100, "020106" + Self.iBeacon))
    _ = session.ingest(
      Self.report(
        Self.a, .scanResponse, rssi: -70, at: 101, "0D094B426561636F6E5F31323031" + "09168020" + "6404000104B1"))
    _ = session.ingest(Self.report(Self.a, .connectable, rssi: -55, at: 300, "020106" + Self.iBeacon))
    let d = session.finish(at: Self.origin + .seconds(1)).first?.devices.first
    #expect(d?.name == "KBeacon_1201")
    #expect(d?.connectable == true)
    #expect(d?.frames.map(\.kind) == [.iBeacon, .kkmScanResponse])
    #expect(d?.rssi == RSSIStatistics(latest: -55, min: -70, max: -55))
    #expect(d?.reportKinds == ["ADV_IND", "SCAN_RSP"])
    #expect(d?.advertisingReports == 2 && d?.scanResponses == 1)
    // A later non-connectable PDU flips the flag; the name stays from the scan response.
    _ = session.ingest(Self.report(Self.a, .nonConnectable, at: 1200, Self.iBeacon))
    _ = session.finish(at: Self.origin + .seconds(2))
    #expect(session.results.first?.connectable == false && session.results.first?.name == "KBeacon_1201")
    #expect(session.results.first?.reportKinds == ["ADV_NONCONN_IND"])
  }
}

extension RSSIStatistics {
  init(latest: Int8, min: Int8, max: Int8) {
    self.init()
    self.latest = latest
    self.min = min
    self.max = max
  }
}
