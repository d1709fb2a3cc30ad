import Foundation
import Testing

@testable import Audit

/// Compliance is a share of the managed devices: beacons no profile manages (`unknown`) are counted and
/// listed apart, and can be left out of the rows. A fully applied fleet among 21 unmanaged beacons read
/// "25 % compliant". "Needs attention" means drifted, missing or unreachable in every format.
@Suite(.timeLimit(.minutes(1))) struct AuditManagedShareTests {
  static let report = AuditHTMLFixture.report

  @Test func sharesAreOfTheManagedDevices() {
    let s = Self.report.summary
    #expect(s.devices == 7 && s.status.unknown == 1 && s.managed == 6)
    #expect(s.managedPercent(s.status.compliant) == 33)
    let page = HTMLScan(AuditHTML.render(Self.report))
    #expect(
      page.element(id: "verdict")?.text.contains("of 6 managed need attention") == true,
      "\(page.element(id: "verdict")?.text ?? "")")
    #expect(
      page.element(id: "verdict")?.text.contains("1 device heard that no profile manages is counted apart") == true)
    #expect(page.html.contains(">33 %</text>"), "the donut's middle is the managed share")
    #expect(page.html.contains("33 % of managed · matches its profile"))
    let markdown = AuditMarkdown.render(Self.report)
    #expect(
      markdown.contains(
        "2 of 6 managed devices compliant (33 %); 1 heard that no profile manages (unknown), not in the share."))
  }

  @Test func unmanagedRowsCanBeLeftOutAndAreStillCounted() {
    let hidden = Self.report.hidingUnmanaged()
    #expect(hidden.devices.count == 6 && !hidden.devices.contains { $0.status == .unknown })
    #expect(hidden.summary == Self.report.summary)
    #expect(AuditMarkdown.render(hidden).contains("not in the share and not listed."))
    #expect(HTMLScan(AuditHTML.render(hidden)).tags("tr", with: "data-address").count == 6)
  }

  @Test func needsAttentionIsTheStatusesAndFlaggedOnlyDevicesAreListedApart() {
    let markdown = AuditMarkdown.render(Self.report)
    let attention = markdown.components(separatedBy: "## Needs attention")[1].components(separatedBy: "\n## ")[0]
    let flagged = markdown.components(separatedBy: "## Flagged (battery, firmware, last run)")
    let statuses = Self.report.devices.filter(\.status.needsAttention).map(\.address)
    #expect(statuses.allSatisfy { attention.contains($0) })
    #expect(Self.report.devices.filter { !$0.status.needsAttention }.allSatisfy { !attention.contains($0.address) })
    #expect(flagged.count == 1 || !flagged[1].isEmpty)
  }

  @Test func markdownEscapesEmphasisAndCodeMarksInNames() {
    #expect(AuditMarkdown.cell("**bold** `code` _x_ [l](u) a|b") == #"\*\*bold\*\* \`code\` \_x\_ \[l\](u) a\|b"#)
    #expect(AuditMarkdown.cell("a\u{1b}[2Jb\nc") == #"a\u{1B}\[2Jb c"#)
  }
}

/// A history reading without a battery value has no `battery` member in the JSON (it was `"battery": {}`),
/// and reads back the same.
@Suite(.timeLimit(.minutes(1))) struct AuditReadingJSONTests {
  @Test func aReadingWithoutBatteryHasNoBatteryMember() throws {
    let at = Date(timeIntervalSince1970: 1_767_225_600)
    let readings = [
      AuditReading(at: at, rssi: -60, battery: AuditBattery()),
      AuditReading(at: at, rssi: nil, battery: AuditBattery(percent: 80)),
    ]
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let text = String(decoding: try encoder.encode(readings), as: UTF8.self)
    #expect(!text.contains("\"battery\":{}") && text.contains("\"battery\":{\"percent\":80}"), "\(text)")
    #expect(try JSONDecoder().decode([AuditReading].self, from: Data(text.utf8)) == readings)
  }
}
