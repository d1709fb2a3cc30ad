import Foundation
import Simulator
import Testing

@testable import BeaconProvisionCLI

/// `audit --connect --parallel 5` on a simulated fleet where, as at a real site, some devices fail on their
/// own — one busy, one with another password, one that drops every link — keeps the adapter's 5 links in
/// use (it once fell to 1–2 links within a second, each device failure or link teardown taken
/// for the adapter's limit, and a busy device's retry pause holding a link). The links are counted where
/// the simulated adapter counts them (`LinkCapacity.inUse`), sampled every 5 ms, in real time with 10 ms
/// per ATT round trip.
@Suite("Audit --connect links", .isolatedState, .timeLimit(.minutes(3))) struct AuditConnectLinksTests {
  static let devices = 80

  static func address(_ i: Int) -> String { String(format: "DD:36:00:00:00:%02X", i) }

  @Test func faultyDevicesDoNotLowerTheLinksInUse() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("audit-links-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    // The faulty devices come first (targets go in address order), so their retries overlap the rest.
    let faults = [
      #", "kbeacon": {"busy": true}"#, #", "kbeacon": {"password": "n0t-the-default"}"#,
      #", "kbeacon": {"dropLinkOnReads": 100}"#,
    ]
    var entries: [String] = []
    var rows = ["address,minor"]
    for i in 0..<Self.devices {
      entries.append(
        #"{"address": "\#(Self.address(i))", "kind": "kbeaconPro", "name": "KB\#(i)", "intervalMs": 100"#
          + #", "system": {"model": 12, "batteryPercent": 90, "firmware": "5.22"}\#(i < faults.count ? faults[i] : "")}"#
      )
      rows.append("\(Self.address(i)),\(i)")
    }
    try #"{"version": 1, "devices": [\#(entries.joined(separator: ",\n"))]}"#.write(
      toFile: folder + "/fleet.json", atomically: true, encoding: .utf8)
    try rows.joined(separator: "\n").write(toFile: folder + "/inventory.csv", atomically: true, encoding: .utf8)
    try
      #"{"version": 1, "inventory": "inventory.csv", "desired": {"slots": [{"slot": 0, "type": "ibeacon", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": "{{minor}}"}]}}"#
      .write(toFile: folder + "/site.json", atomically: true, encoding: .utf8)

    let fleet = try SimulatedFleet.load(path: folder + "/fleet.json")
    let (central, _) = SimulatedCentral.withKBeacons(
      fleet: fleet, pace: .realTime, linkModel: LinkModel(roundTripLatency: .milliseconds(10)))
    let capacity = central.gattLinks.capacity
    let sampler = Task {
      var samples: [Int] = []
      while !Task.isCancelled {
        samples.append(await capacity.inUse)
        try? await Task.sleep(for: .milliseconds(5))
      }
      return samples
    }
    let command = try AuditCommand.parse([
      folder + "/site.json", "--adapter", "sim:\(folder)/fleet.json", "--scan", "1",
      "--connect", "--parallel", "5", "--state-dir", folder + "/state",
    ])
    let report = try await AuditRunner(command: command, pace: .realTime, central: central).run()
    sampler.cancel()
    let samples = await sampler.value

    let unreadable = report.devices.filter { $0.error != nil }.map(\.address).sorted()
    #expect(unreadable == (0..<3).map(Self.address), "only the three faulty devices are unreadable")
    // The link time used, in samples × links; at 5 links at once it takes a fifth as many samples. Most of it
    // must have run with 4 or 5 links in use (the faulty devices' last retries make a tail of 1 or 2).
    let linkTime = samples.reduce(0, +)
    let full = samples.filter { $0 >= 4 }.count
    #expect(
      Double(full) >= 0.7 * Double(linkTime) / 5,
      "\(full) samples with 4–5 links in use, \(linkTime) link-samples in all")
    #expect(samples.max() == 5)
  }
}
