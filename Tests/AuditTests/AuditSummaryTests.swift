import BeaconCore
import Foundation
import Testing

@testable import Audit

@Suite(.timeLimit(.minutes(2))) struct AuditSummaryTests {
  static let devices = [
    AuditDevice(
      address: "AA:00:00:00:00:01", firmwareVersion: "5.22", tags: ["front"], status: .compliant, heard: true,
      battery: AuditBattery(percent: 95)),
    AuditDevice(
      address: "AA:00:00:00:00:02", firmwareVersion: "5.9", tags: ["front", "cold"], status: .drifted, heard: true,
      battery: AuditBattery(percent: 7), flags: [.lowBattery]),
    AuditDevice(address: "AA:00:00:00:00:03", tags: ["cold"], status: .missing, heard: false),
    AuditDevice(
      address: "AA:00:00:00:00:04", firmwareVersion: "5.10", status: .unknown, heard: true,
      battery: AuditBattery(millivolts: 2950)),
  ]

  @Test func countsEachStatusFlagAndTag() {
    let s = AuditSummary(Self.devices)
    #expect(s.devices == 4)
    #expect(
      [s.status.compliant, s.status.drifted, s.status.missing, s.status.unknown, s.status.unreachable] as [Int] == [
        1, 1, 1, 1, 0,
      ])
    #expect(s.lowBattery == 1)
    #expect(s.tags.map(\.tag) == ["cold", "front"])
    #expect(s.tags[0].status.drifted == 1 && s.tags[0].status.missing == 1 && s.tags[0].status.compliant == 0)
    #expect(s.tags[1].status.compliant == 1 && s.tags[1].status.drifted == 1)
  }

  @Test func firmwareIsOrderedByVersionNumbersNewestFirstWithUnknownLast() {
    let s = AuditSummary(Self.devices)
    #expect(s.firmware.map(\.label) == ["5.22", "5.10", "5.9", "unknown"])
    #expect(s.firmware.map(\.count).reduce(0, +) == 4)
  }

  @Test func batteryBandsSplitPercentFromMillivoltOnlyDevices() {
    let s = AuditSummary(Self.devices)
    #expect(s.batteryPercent.count == 10)
    #expect(s.batteryPercent[0] == AuditBucket(label: "0–9 %", count: 1))
    #expect(s.batteryPercent[9] == AuditBucket(label: "90–100 %", count: 1))
    #expect(s.batteryMillivolts.first { $0.count > 0 } == AuditBucket(label: "2800–2999 mV", count: 1))
    #expect(s.batteryUnknown == 1)
  }
}

@Suite(.timeLimit(.minutes(2))) struct AuditCSVTests {
  @Test func fieldsAreQuotedAsRFC4180AndFormulasAreDefused() {
    let device = AuditDevice(
      address: "AA:00:00:00:00:01", name: "=HYPERLINK(\"http://x\")", tags: ["+tag", "b,c"], status: .unknown,
      heard: true, rssi: -70)
    let report = AuditReport(
      generatedAt: Date(timeIntervalSince1970: 0), mode: .passive, adapter: "sim", profiles: [],
      inventory: nil, scanSeconds: 1, thresholds: AuditThresholds(), devices: [device])
    let lines = AuditCSV.render(report).components(separatedBy: "\r\n")
    #expect(lines.count == 3 && lines[2] == "")
    #expect(lines[1].hasPrefix(#"AA:00:00:00:00:01,"'=HYPERLINK(""http://x"")",unknown,yes,,-70,"#))
    #expect(lines[1].contains(#","'+tag;b,c","#), "a tag list starting with + is defused, and quoted for its comma")
  }

  /// A passive audit of a never-read fleet reported "0 old firmware" as if it had compared: the managed
  /// devices of unknown version are counted (the unmanaged one of unknown version is not), and every
  /// format that shows the old-firmware count says firmware was not compared for them.
  @Test func firmwareThatCouldNotBeComparedIsCountedAndSaid() {
    let s = AuditSummary(
      AuditSummaryTests.devices + [AuditDevice(address: "AA:00:00:00:00:05", status: .unknown, heard: true)])
    #expect(s.firmwareUnknown == 1)
    let report = AuditReport(
      generatedAt: Date(timeIntervalSince1970: 0), mode: .passive, adapter: "hci0", profiles: ["p.json"],
      inventory: nil,
      scanSeconds: 5, thresholds: AuditThresholds(newestFirmware: ["KBPro": "5.22"]), devices: AuditSummaryTests.devices
    )
    #expect(
      AuditMarkdown.render(report).contains("Firmware not compared for 1 managed device: its version is not known"))
    #expect(AuditHTML.render(report).contains("not compared: 1 managed of unknown version"))
    let known = AuditReport(
      generatedAt: Date(timeIntervalSince1970: 0), mode: .passive, adapter: "hci0", profiles: ["p.json"],
      inventory: nil,
      scanSeconds: 5, thresholds: AuditThresholds(), devices: Array(AuditSummaryTests.devices.prefix(2)))
    #expect(!AuditMarkdown.render(known).contains("not compared"))
  }

  /// The HTML battery column sorted a flagged 2,200 mV device after one at 34 %: both scales now share one
  /// sort value, devices flagged low first.
  @Test func theBatteryColumnSortsMillivoltsAndPercentOnOneScale() throws {
    func key(_ b: AuditBattery, low: Bool) throws -> Int {
      let text = try #require(AuditHTMLTable.batterySort(b, flaggedLow: low))
      return try #require(Int(text))
    }
    let flagged2200 = try key(AuditBattery(millivolts: 2200), low: true)
    let at34 = try key(AuditBattery(percent: 34), low: false)
    let at2950 = try key(AuditBattery(millivolts: 2950), low: false)
    let at96 = try key(AuditBattery(percent: 96), low: false)
    #expect(flagged2200 < at34 && at34 < at2950 && at2950 < at96)
    #expect(try key(AuditBattery(percent: 8), low: true) < at34)
    #expect(AuditHTMLTable.batterySort(nil, flaggedLow: false) == nil)
  }
}

/// Hostile-input review, "unescaped output": a device name carrying terminal escapes went into the CSV raw — on standard
/// output straight into the operator's terminal, and into a file that `cat` replays.
@Suite(.timeLimit(.minutes(2))) struct AuditCSVControlCharacterTests {
  static let report = AuditReport(
    generatedAt: Date(timeIntervalSince1970: 0), mode: .passive, adapter: "sim", profiles: [], inventory: nil,
    scanSeconds: 1,
    thresholds: AuditThresholds(),
    devices: [
      AuditDevice(
        address: "AA:00:00:00:00:01", name: "\u{1B}]0;pwned\u{07}a,b\nc\u{9B}2J", status: .unknown, heard: true)
    ])

  @Test func aFileKeepsLineBreaksInAQuotedFieldAndEscapesTheRest() {
    let row = AuditCSV.render(Self.report).components(separatedBy: "\r\n")[1]
    #expect(row.hasPrefix(#"AA:00:00:00:00:01,"\u{1B}]0;pwned\u{07}a,b"# + "\n" + #"c\u{9B}2J",unknown,"#), "\(row)")
  }

  @Test func standardOutputGetsOneLinePerDeviceAndNoControlCharacter() {
    let text = AuditCSV.render(Self.report, forTerminal: true)
    let lines = text.components(separatedBy: "\r\n")
    #expect(lines.count == 3, "\(lines)")
    #expect(lines[1].hasPrefix(#"AA:00:00:00:00:01,"\u{1B}]0;pwned\u{07}a,b\u{0A}c\u{9B}2J",unknown,"#), "\(lines[1])")
    #expect(!text.unicodeScalars.contains { TerminalText.isControl($0) && $0 != "\r" && $0 != "\n" })
  }
}
