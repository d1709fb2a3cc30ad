import Foundation

@testable import Audit

/// A small fleet for the HTML report's tests: every status, several tags and firmware versions, battery by
/// percent and by millivolts, drift seen on the air and read, an error, a failed run, and a device whose
/// advertised name is markup.
enum AuditHTMLFixture {
  static let generated = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01 00:00 UTC
  static let hostileName = #"<img src=x onerror=alert(1)>"'&"#

  static let devices = [
    AuditDevice(
      address: "C3:00:00:00:00:01", name: "Lobby east", model: "KBPro", firmwareVersion: "5.22", profile: "lobby.json",
      tags: ["lobby"], status: .compliant, heard: true, lastSeen: generated.addingTimeInterval(-20), rssi: -58,
      battery: AuditBattery(percent: 96), frames: ["iBeacon", "KSensor"]),
    AuditDevice(
      address: "C3:00:00:00:00:02", name: "Lobby west", model: "KBPro", firmwareVersion: "5.9", profile: "lobby.json",
      tags: ["cold-room", "lobby"], status: .drifted, heard: true, lastSeen: generated.addingTimeInterval(-35),
      rssi: -71,
      battery: AuditBattery(percent: 8), frames: ["iBeacon"],
      drift: [
        AuditDrift(scope: "slot 0", key: "iBeacon.major", expected: "100", actual: "7", source: .air),
        AuditDrift(scope: "device", key: "txPower", expected: "0", actual: nil, source: .read),
      ],
      flags: [.lowBattery, .oldFirmware, .lastRunFailed],
      lastApply: AuditRunLink(
        run: "2025-12-30-a", kind: "apply", outcome: "failed", detail: "write refused",
        at: generated.addingTimeInterval(-86_400))),
    AuditDevice(
      address: "C3:00:00:00:00:03", name: "Freezer 3", model: "KBPro", profile: "cold.json", tags: ["cold-room"],
      status: .missing, heard: false, lastSeen: generated.addingTimeInterval(-3 * 86_400)),
    AuditDevice(
      address: "C3:00:00:00:00:04", firmwareVersion: "5.10", status: .unknown, heard: true,
      lastSeen: generated.addingTimeInterval(-12), rssi: -88, battery: AuditBattery(millivolts: 2950),
      frames: ["EddystoneTLM"]),
    AuditDevice(
      address: "C3:00:00:00:00:05", name: "Dock door", model: "KBPro", firmwareVersion: "5.9", profile: "dock.json",
      tags: ["dock"], status: .unreachable, heard: true, lastSeen: generated.addingTimeInterval(-40), rssi: -90,
      battery: AuditBattery(millivolts: 2310), flags: [.lowBattery, .oldFirmware],
      error: "connection timed out after 10 s"),
    AuditDevice(
      address: "C3:00:00:00:00:06", name: "Dock shelf", model: "KBPro", firmwareVersion: "5.22", profile: "dock.json",
      tags: ["dock"], status: .compliant, heard: true, lastSeen: generated.addingTimeInterval(-8), rssi: -64,
      battery: AuditBattery(percent: 57)),
    AuditDevice(
      address: "C3:00:00:00:00:07", name: hostileName, model: "KBPro", firmwareVersion: "5.22", profile: "lobby.json",
      tags: ["lobby"], status: .drifted, heard: true, lastSeen: generated.addingTimeInterval(-5), rssi: -67,
      battery: AuditBattery(percent: 74),
      drift: [
        AuditDrift(
          scope: "slot 1", key: "eddystoneURL.url", expected: "https://example.com/a", actual: "https://evil.example/",
          source: .air)
      ]),
  ]

  static let report = AuditReport(
    generatedAt: generated, mode: .connect, adapter: "hci0", profiles: ["lobby.json", "cold.json", "dock.json"],
    inventory: "inventory.csv", scanSeconds: 12, thresholds: AuditThresholds(newestFirmware: ["KBPro": "5.22"]),
    devices: devices)

  /// No device at all: nothing heard, nothing expected.
  static let empty = AuditReport(
    generatedAt: generated, mode: .passive, adapter: "hci0", profiles: [], inventory: nil, scanSeconds: 5,
    thresholds: AuditThresholds(), devices: [])

  /// The same report with the one URL taken out of the drift (for the test that the page names no address
  /// a browser could fetch).
  static var offline: AuditReport {
    AuditReport(
      generatedAt: generated, mode: .passive, adapter: "hci0", profiles: ["lobby.json"], inventory: nil,
      scanSeconds: 8.5,
      thresholds: AuditThresholds(),
      devices: devices.map { d in
        var d = d
        d.drift = d.drift.filter { !$0.expected.contains("://") }
        return d
      })
  }
}
