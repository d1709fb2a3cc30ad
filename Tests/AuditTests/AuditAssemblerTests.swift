import BeaconCore
import Foundation
import Testing

@testable import Audit
@testable import Profiles

@Suite(.timeLimit(.minutes(2))) struct AuditAssemblerTests {
  static let start = Date(timeIntervalSince1970: 1_795_600_000)
  static let assembler = AuditAssembler(thresholds: AuditThresholds(batteryPercent: 20, batteryMillivolts: 2500))

  static func subject(
    _ address: String = "DD:34:02:06:D1:07", profile: String? = "site.json", named: Bool = true,
    heard: Bool = true, desired: DeviceConfigView = AirDriftTests.desired(), read: AuditReadOutcome? = nil,
    known: AuditKnown? = nil, newest: String? = nil
  ) -> AuditSubject {
    AuditSubject(
      address: address, profile: profile, named: named, tags: ["front"],
      desired: profile == nil ? nil : .success(desired),
      sighting: heard ? AirDriftTests.record() : nil, scanStarted: start, known: known, read: read,
      newestFirmware: newest)
  }

  @Test func statusFollowsWhoNamesItWhatWasHeardAndWhatWasRead() {
    let a = Self.assembler
    #expect(a.device(Self.subject())?.status == .compliant)
    #expect(a.device(Self.subject(heard: false))?.status == .missing)
    #expect(a.device(Self.subject(named: false, heard: false)) == nil, "not named and not heard is not ours to report")
    #expect(a.device(Self.subject(profile: nil, named: false))?.status == .unknown)
    #expect(a.device(Self.subject(profile: nil, named: true))?.status == .compliant, "named by --inventory alone")
    #expect(a.device(Self.subject(desired: AirDriftTests.desired(major: 1)))?.status == .drifted)
    let unreachable = a.device(Self.subject(read: .failed("no answer to Exchange MTU")))
    #expect(unreachable?.status == .unreachable && unreachable?.error == "no answer to Exchange MTU")
    let change = ConfigChange(scope: .slot(0), key: "txPwr", old: .integer(-4), new: .integer(0))
    let read = a.device(Self.subject(read: .read([change])))
    #expect(read?.status == .drifted)
    #expect(read?.drift == [AuditDrift(scope: "slot 0", key: "txPwr", expected: "0", actual: "-4", source: .read)])
  }

  /// A device of a text-command profile: its answers cannot be heard on the air, so it is
  /// `unknown` until read; a read that found answers to set is drift like any other.
  @Test func aTextCommandDeviceIsJudgedOnlyByReadingIt() {
    var passive = Self.subject(desired: DeviceConfigView())
    passive.judgedOnlyByReading = true
    let unread = Self.assembler.device(passive)
    #expect(unread?.status == .unknown && unread?.error?.contains("--connect") == true)
    let change = ConfigChange(
      scope: .command(0), key: "AT+NAME?", old: .text("+NAME:old | OK"), new: .text("AT+NAME=dock"))
    var connected = passive
    connected.read = .read([change])
    #expect(Self.assembler.device(connected)?.status == .drifted)
    connected.read = .read([])
    #expect(Self.assembler.device(connected)?.status == .compliant)
  }

  @Test func theScanWinsOverTheRegistryAndFillsWhatItLacks() {
    let known = AuditKnown(
      name: "old-name", model: "KBPro", firmwareVersion: "5.22", lastSeen: Self.start.addingTimeInterval(-86_400),
      rssi: -90, battery: AuditBattery(percent: 15))
    let heard = Self.assembler.device(Self.subject(known: known))!
    #expect(heard.name == "aisle-07" && heard.rssi == -60 && heard.model == "KBPro" && heard.firmwareVersion == "5.22")
    #expect(heard.lastSeen == Self.start.addingTimeInterval(4))
    #expect(heard.battery == AuditBattery(percent: 15) && heard.flags == [.lowBattery])
    let missing = Self.assembler.device(Self.subject(heard: false, known: known))!
    #expect(missing.lastSeen == known.lastSeen && missing.rssi == -90 && missing.name == "old-name" && !missing.heard)
  }

  @Test func firmwareOlderThanTheNewestAndAFailedLastRunAreFlagged() {
    let failedApply = AuditRunLink(
      run: "r1", kind: "apply", outcome: "failed", detail: "wrong password", at: Self.start)
    let laterDFU = AuditRunLink(
      run: "r2", kind: "dfu", outcome: "verified", detail: nil, at: Self.start.addingTimeInterval(60))
    let old = Self.assembler.device(
      Self.subject(known: AuditKnown(firmwareVersion: "5.9", lastApply: failedApply), newest: "5.22"))!
    #expect(old.flags == [.oldFirmware, .lastRunFailed])
    let recovered = Self.assembler.device(
      Self.subject(
        known: AuditKnown(firmwareVersion: "5.22", lastApply: failedApply, lastDFU: laterDFU), newest: "5.22"))!
    #expect(recovered.flags.isEmpty, "the later DFU succeeded, and 5.22 is the newest")
  }

  @Test func aProfileThatCannotBeResolvedForTheDeviceIsReportedNotDropped() {
    var s = Self.subject()
    s.desired = .failure(
      DesiredResolver.Failure(path: .root, message: "{{minor}} is not in the inventory", allowed: nil))
    let device = Self.assembler.device(s)!
    #expect(device.status == .drifted)
    #expect(device.error?.contains("{{minor}} is not in the inventory") == true)
  }
}
