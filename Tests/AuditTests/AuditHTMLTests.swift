import Foundation
import Testing

@testable import Audit

/// The HTML report read as text: its numbers are the summary's, it has one row per device, every text from
/// the report is escaped, and it names nothing a browser would fetch.
@Suite(.timeLimit(.minutes(2))) struct AuditHTMLTests {
  static let report = AuditHTMLFixture.report
  static let page = HTMLScan(AuditHTML.render(report))

  @Test func theChartsCountWhatTheSummaryCounts() {
    Self.expectChartsCount(Self.report.summary, in: Self.page)
  }

  /// Every bar's `data-count` is the summary's number for its label (also run on the DOM a browser dumps).
  static func expectChartsCount(_ s: AuditSummary, in page: HTMLScan) {
    let status = page.counts(in: "chart-status")
    #expect(status.map(\.label) == AuditHTML.statusOrder.map(\.rawValue))
    for (label, count) in status { #expect(AuditStatus(rawValue: label).map { s.status[$0] } == count, "\(label)") }
    #expect(page.counts(in: "chart-firmware").map { AuditBucket(label: $0.label, count: $0.count) } == s.firmware)
    #expect(page.counts(in: "chart-battery").map { AuditBucket(label: $0.label, count: $0.count) } == s.batteryPercent)
    #expect(
      page.counts(in: "chart-battery-mv").map { AuditBucket(label: $0.label, count: $0.count) } == s.batteryMillivolts)
    let segments = page.element(id: "chart-tags")?.tags("rect", with: "data-count") ?? []
    #expect(segments.count == s.tags.count * AuditStatus.allCases.count)
    for segment in segments {
      let tag = s.tags.first { $0.tag == segment["data-tag"] }
      let status = segment["data-label"].flatMap(AuditStatus.init(rawValue:))
      #expect(
        tag != nil && status != nil && tag.map { $0.status[status!] } == Int(segment["data-count"] ?? ""), "\(segment)")
    }
  }

  @Test func theCardsShowTheSummaryTotals() {
    let s = Self.report.summary
    var expected = [
      "devices": s.devices, "lowBattery": s.lowBattery, "oldFirmware": s.oldFirmware, "lastRunFailed": s.lastRunFailed,
    ]
    for st in AuditStatus.allCases { expected[st.rawValue] = s.status[st] }
    let cards = Self.page.html.matches(
      of: /data-card="([a-zA-Z]+)"><div class="card-label">[^<]*<\/div><div class="card-value">(\d+)</)
    #expect(Dictionary(uniqueKeysWithValues: cards.map { (String($0.output.1), Int($0.output.2)!) }) == expected)
    #expect(s.lowBattery == 2 && s.oldFirmware == 2 && s.lastRunFailed == 1)
  }

  @Test func oneRowPerDeviceInAddressOrderWithItsStatus() {
    let rows = Self.page.tags("tr", with: "data-address")
    #expect(rows.map { $0["data-address"] } == Self.report.devices.map(\.address))
    #expect(rows.map { $0["data-status"] } == Self.report.devices.map(\.status.rawValue))
    #expect(Self.page.element(id: "visible-count")?.text == "\(Self.report.devices.count)")
    // Drift, errors and runs sit in a <details> in a row under the device's, one table row per setting.
    #expect(Self.page.tags("tr", with: "data-source").map { $0["data-source"] } == ["air", "read", "air"])
    #expect(Self.page.html.contains("<details><summary>2 settings differ from the profile · last run failed</summary>"))
    #expect(Self.page.html.components(separatedBy: "<tr class=\"detail\">").count == 4)
    #expect(Self.page.html.contains("connection timed out after 10 s"))
  }

  @Test func anEmptyReportStillHasEveryChartAndNoRow() {
    let page = HTMLScan(AuditHTML.render(AuditHTMLFixture.empty))
    for id in ["chart-status", "chart-firmware", "chart-battery", "chart-tags"] {
      #expect(page.element(id: id) != nil, "\(id)")
    }
    #expect(page.counts(in: "chart-status").allSatisfy { $0.count == 0 })
    #expect(page.element(id: "chart-battery-mv") == nil)
    #expect(page.tags("tr", with: "data-address").isEmpty)
    #expect(page.element(id: "visible-count")?.text == "0")
    #expect(page.element(id: "verdict")?.text == "No devices were found or expected.")
  }

  @Test func aMarkupNameIsShownEscapedAndNeverBecomesMarkup() {
    let html = Self.page.html
    #expect(!html.contains("<img"))
    #expect(!html.contains("onerror=alert(1)>"))
    #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;"))
    #expect(html.components(separatedBy: "<script").count == 2)
    #expect(Self.page.tags.allSatisfy { tag in !tag.attributes.keys.contains { $0.hasPrefix("on") } })
  }

  @Test func everyReportTextIsEscapedInTextAndInAttributes() {
    let evil = #"x"><script>alert(1)</script><b title='y"#
    var device = AuditHTMLFixture.devices[1]
    (device.address, device.name, device.model, device.firmwareVersion, device.profile, device.tags, device.error) =
      (evil, evil, evil, evil, evil, [evil], evil)
    device.drift = [AuditDrift(scope: evil, key: evil, expected: evil, actual: evil, source: .air)]
    device.lastApply = AuditRunLink(run: evil, kind: evil, outcome: evil, detail: evil, at: AuditHTMLFixture.generated)
    let report = AuditReport(
      generatedAt: AuditHTMLFixture.generated, mode: .passive, adapter: evil, profiles: [evil], inventory: evil,
      scanSeconds: 1,
      thresholds: AuditThresholds(), devices: [device])
    let page = HTMLScan(AuditHTML.render(report))
    #expect(page.html.components(separatedBy: "<script").count == 2)
    #expect(!page.html.contains("<script>alert") && !page.html.contains("<b title"))
    // The attributes that carry report text hold it whole, not cut short by a quote.
    #expect(page.tags("tr", with: "data-address").map { $0["data-address"] } == [evil])
    #expect(page.tags("rect", with: "data-tag").allSatisfy { $0["data-tag"] == evil })
    #expect(page.tags("rect", with: "data-count").contains { $0["data-label"] == evil })
    #expect(page.element(id: "meta")?.text.contains("Adapter\(evil)") == true)
  }

  @Test func thePageNamesNothingABrowserWouldFetch() {
    let page = HTMLScan(AuditHTML.render(AuditHTMLFixture.offline))
    for needle in [
      "http:", "https:", "ftp:", "=\"//", "url(", "@import", "<link rel=\"stylesheet\"", "<iframe", "<object", "<embed",
    ] {
      #expect(!page.html.contains(needle), "\(needle)")
    }
    for tag in page.tags {
      for attribute in ["src", "href", "srcset", "action", "poster", "data", "xlink:href"] {
        guard let value = tag[attribute] else { continue }
        #expect(value.hasPrefix("data:") || value.hasPrefix("#"), "<\(tag.name) \(attribute)=\"\(value)\">")
      }
    }
    let policy = page.tags("meta", with: "http-equiv").first { $0["http-equiv"] == "Content-Security-Policy" }?[
      "content"]
    #expect(policy?.hasPrefix("default-src 'none';") == true)
  }

  @Test func thePolicyAllowsExactlyTheInlineScriptAndStyle() throws {
    let html = Self.page.html
    let script = try #require(html.firstMatch(of: /<script>((?s).*?)<\/script>/)).output.1
    let style = try #require(html.firstMatch(of: /<style>((?s).*?)<\/style>/)).output.1
    let policy = try #require(Self.page.tags("meta", with: "http-equiv").first?["content"])
    #expect(policy.contains("script-src \(SHA256.cspSource(String(script)));"))
    #expect(policy.contains("style-src \(SHA256.cspSource(String(style)));"))
    #expect(
      SHA256.digest(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined()
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(
      SHA256.digest(Array(String(repeating: "a", count: 1_000).utf8)).map { String(format: "%02x", $0) }.joined()
        == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
  }
}
