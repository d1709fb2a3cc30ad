import BeaconCore
import Foundation
import GRDB
import Profiles
import Synchronization
import Testing

@testable import Fleet

/// An `apply` campaign keeps the registry current through a `RegistryRecorder`, and a registry that cannot
/// be written costs one warning, never a device.
@Suite("Registry recorder", .timeLimit(.minutes(1))) struct RegistryRecorderTests {
  final class Warnings: Sendable {
    private let lines = Mutex<[String]>([])
    func add(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
  }

  static func campaign(_ f: ApplyCampaignTests.Fixture, run: String, registry: RegistryRecorder) throws -> ApplyCampaign
  {
    ApplyCampaign(
      profile: try ApplyCampaignTests.loaded(), targets: f.targets, opener: FakeOpener(devices: f.devices),
      journal: f.journal, run: run,
      options: .init(parallel: 2, retry: RetryPolicy(maximumAttempts: 1, firstDelay: .zero)),
      passwords: .init(current: Secret("0000000000000000")), resolver: DesiredResolver(urlCheck: { _ in nil }),
      registry: registry,
      sleep: { _ in })
  }

  @Test func anApplyRecordsTheReadBackOfEveryDevice() async throws {
    let f = try ApplyCampaignTests.Fixture(compliant: [1])
    let warnings = Warnings()
    let registry = FleetRegistry(journal: f.journal)
    let run = try await f.newRun()
    let summary = try await Self.campaign(
      f, run: run, registry: RegistryRecorder(registry: registry, warn: warnings.add)
    ).start()
    #expect(summary.count(.verified) == 3 && summary.count(.compliant) == 1 && warnings.all.isEmpty)

    let devices = try await registry.devices()
    #expect(devices.map(\.address) == f.targets.map(\.address.description))
    for device in devices {
      let fake = try #require(f.devices[BluetoothAddress(device.address)!])
      let now = try await fake.read()
      #expect(
        device.model == "KBPro" && device.firmwareVersion == "5.22" && device.name == now.common["name"]?.textValue)
      #expect(device.configurationHash == ConfigurationFingerprint(now).sha256, "\(device.address): not the read-back")
      #expect(device.lastApply?.run == run)
    }
  }

  @Test func aRegistryThatCannotBeWrittenWarnsOnceAndFailsNoDevice() async throws {
    let f = try ApplyCampaignTests.Fixture()
    try await f.journal.database.write { db in
      try db.execute(sql: "DROP TABLE registryReading; DROP TABLE registryDevice")
    }
    let warnings = Warnings()
    let recorder = RegistryRecorder(registry: FleetRegistry(journal: f.journal), warn: warnings.add)
    let summary = try await Self.campaign(f, run: try await f.newRun(), registry: recorder).start()
    #expect(summary.count(.verified) == 4 && summary.journalFailure == nil)
    await recorder.sightings([])  // nothing to record: no write, no warning
    #expect(warnings.all.count == 1)
    #expect(
      warnings.all.first?.hasPrefix("cannot update the fleet registry in (in memory): SQLite error") == true,
      "\(warnings.all)")
  }
}
