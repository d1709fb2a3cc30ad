import Foundation
import Testing

@testable import Audit

/// The battery and RSSI history was in the JSON only: the HTML report draws it as a trend line in the
/// device's RSSI and battery cells.
@Suite(.timeLimit(.minutes(1))) struct AuditHTMLTrendTests {
  static let at = Date(timeIntervalSince1970: 1_767_225_600)

  static func device(history: [AuditReading], rssi: Int?, battery: AuditBattery?) -> AuditDevice {
    AuditDevice(
      address: "C3:00:00:00:00:09", status: .compliant, heard: true, rssi: rssi, battery: battery, history: history)
  }

  @Test func earlierReadingsAndTheCurrentOneAreOneLineOldestFirst() throws {
    let history = [-80, -75, -70].enumerated().map { i, r in
      AuditReading(
        at: Self.at.addingTimeInterval(Double(i) * 60), rssi: r, battery: AuditBattery(millivolts: 3000 - i * 100))
    }
    let d = Self.device(history: history, rssi: -60, battery: AuditBattery(millivolts: 2600))
    let rssi = try #require(AuditHTMLTrend.rssi(d))
    #expect(rssi.contains(#"data-trend="rssi""#))
    #expect(rssi.contains("RSSI trend over 4 readings: -80 → -60 dBm"))
    // Four points from left to right; the strongest (last) reading is drawn highest (smallest y).
    let points = try #require(rssi.firstMatch(of: /points="([^"]*)"/)).1.split(separator: " ").map {
      $0.split(separator: ",").map { Double($0)! }
    }
    #expect(points.map { $0[0] } == [0, 21.3, 42.7, 64])
    #expect(points.map { $0[1] } == points.map { $0[1] }.sorted(by: >))
    let battery = try #require(AuditHTMLTrend.battery(d))
    #expect(battery.contains("battery trend over 4 readings: 3000 → 2600 mV"))
  }

  @Test func oneReadingDrawsNoLineAndTheTableCarriesTheLines() {
    let lonely = Self.device(history: [], rssi: -60, battery: AuditBattery(percent: 80))
    #expect(AuditHTMLTrend.rssi(lonely) == nil && AuditHTMLTrend.battery(lonely) == nil)
    let withHistory = Self.device(
      history: [AuditReading(at: Self.at, rssi: -70, battery: AuditBattery(percent: 90))], rssi: -60,
      battery: AuditBattery(percent: 80))
    let report = AuditReport(
      generatedAt: Self.at, mode: .passive, adapter: "hci0", profiles: [], inventory: nil, scanSeconds: 5,
      thresholds: AuditThresholds(), devices: [withHistory])
    let html = AuditHTML.render(report)
    #expect(html.contains(#"data-trend="rssi""#) && html.contains("battery trend over 2 readings: 90 → 80 %"))
  }
}
