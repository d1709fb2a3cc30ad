import BeaconCore
import Foundation
import NordicDFU
import TestServers
import Testing

@testable import Simulator

/// A simulated KBeacon's bootloader outlives the run of the simulation that started it
/// (`SimulatedBootloaderRecord`, docs/protocols/nordic-dfu.md §2.5–2.6): a second simulation built from the saved
/// state — a `--resume` after a `kill -9`, another gateway of the site — finds the device still in its bootloader,
/// advertising the name it was given, holding the objects it executed, so the real DFU client sends only the rest.
@Suite(.timeLimit(.minutes(2))) struct KeptBootloaderTests {
  static let application = BluetoothAddress("DD:41:00:00:00:10")!

  /// One KBeacon Pro on 5.22 (fw_version 522); its bootloader drops the link at firmware byte 5000 and at
  /// every data write after, so a transfer stops with one 4096-byte object executed.
  static func fleet(inactivityMs: Int = 60_000) throws -> SimulatedFleet {
    try SimulatedFleet.decode(
      Data(
        #"""
        {"version": 1, "devices": [{"address": "DD:41:00:00:00:10", "kind": "kbeaconPro", "name": "KEPT",
          "intervalMs": 100, "system": {"model": 12, "batteryPercent": 90, "firmware": "5.22"},
          "dfu": {"inactivityTimeoutMs": \#(inactivityMs), "faults": {"dropLinkAtByte": 5000, "always": true}}}]}
        """#.utf8))
  }

  /// A simulation of `fleet` starting from `store`'s state and saving every change there, as the CLI wires one.
  static func simulation(_ fleet: SimulatedFleet, store: SimulatorStateStore) throws -> SimulatedCentral {
    let (central, kbeacons) = SimulatedCentral.withKBeacons(
      fleet: fleet, pace: .unpaced, restored: try store.loadNewest())
    kbeacons.setChangeHandler { [weak kbeacons] in
      guard let kbeacons else { return }
      try? store.save(await kbeacons.snapshots())
    }
    return central
  }

  static func factory(_ central: SimulatedCentral, waiting: Bool) -> BLEDFULinkFactory {
    BLEDFULinkFactory(
      central: central, device: application, addressType: .public, bootloaderWaiting: waiting,
      connectTimeout: .seconds(1), scanTimeout: .seconds(1), silenceWindow: .milliseconds(100))
  }

  static func store() -> SimulatorStateStore {
    let folder = NSTemporaryDirectory() + "bp-kept-bootloader-\(UUID().uuidString.prefix(8))"
    TemporaryFolders.removeAtExit(folder)
    return SimulatorStateStore(stateDirectory: folder, fleetFile: nil)
  }

  @Test func aSecondRunFindsTheDeviceInItsBootloaderAndOnlyTheRestOfTheImageIsSent() async throws {
    let (fleet, store) = (try Self.fleet(), Self.store())
    let image = DFUTestPackages.application(10_000, version: 600)
    let first = try Self.simulation(fleet, store: store)
    let transfer = DFUTransfer(
      factory: Self.factory(first, waiting: false),
      configuration: DFUEngineConfiguration(maximumReconnectsWithoutProgress: 2),
      pause: { _ in })
    await #expect(throws: (any Error).self) { try await transfer.run([image]) }

    // The device's flash: in its bootloader under the name this run gave it, the command and one object executed.
    let saved = try #require(try store.loadNewest()[Self.application]?.bootloader)
    #expect(saved.name == BootloaderName.make(for: Self.application, attempt: 1))
    #expect(saved.command == image.initPacket)
    #expect(saved.image == Array(image.firmware.prefix(4096)))

    // A new run (the first one's bootloader gone with it): the device still waits, heard by its name, its
    // application silent; the client resumes at 4096 and the image runs.
    let second = try Self.simulation(fleet, store: store)
    var heard: [String] = []
    for try await report in second.scan(ScanParameters(active: false)) {
      heard.append(AdvertisingData(report.data).localName ?? "-")
      if heard.count >= 3 { break }
    }
    #expect(heard.allSatisfy { $0 == saved.name }, "only the bootloader advertises: \(heard)")
    await #expect(throws: LinkError.self) {
      _ = try await second.connect(to: Self.application, type: .public, timeout: .seconds(1))
    }
    let factory = Self.factory(second, waiting: true)
    try await DFUTransfer(factory: factory, pause: { _ in }).run([image])
    let session = try #require(second.bootloaders.sessions.last)
    #expect(await session.target.firmwareBytesReceived == 10_000 - 4096, "only the objects not executed were sent")
    #expect(await session.target.activated.map(\.firmware) == [image.firmware])
    #expect(await !factory.jumped)
    let after = try #require(try store.loadNewest()[Self.application])
    #expect(after.bootloader == nil)
    #expect(after.configuration.common.fields["ver"]?.stringValue == KKMFirmwareVersion.text(fwVersion: 600))
  }

  /// The inactivity timer runs on while no run of the simulation does: a run that starts after it ran out finds the
  /// old application, and no bootloader.
  @Test func aBootloaderWhoseTimerRanOutWhileNoRunWasThereIsGoneAndTheOldApplicationRuns() async throws {
    let store = Self.store()
    let fleet = try Self.fleet(inactivityMs: 1_000)
    var record = SimulatedBootloaderRecord.entered(name: "DfuGone", at: Date(timeIntervalSinceNow: -2))
    record.command = DFUTestPackages.application(10_000, version: 600).initPacket
    let first = SimulatedCentral.withKBeacons(fleet: fleet, pace: .unpaced).kbeacons
    var snapshot = try #require(await first.kbeacon(Self.application)?.snapshot())
    snapshot.bootloader = record
    try store.save([Self.application: snapshot])

    let second = try Self.simulation(fleet, store: store)
    let bearer = try await second.connect(to: Self.application, type: .public, timeout: .seconds(1))
    await bearer.close()
    #expect(!second.bootloaders.isInBootloader(Self.application))
    #expect(second.bootloaders.entered.isEmpty)
  }

  @Test func theRecordKeepsItsBytesThroughTheStateFileAndADamagedOneIsRefused() async throws {
    let store = Self.store()
    let kbeacons = SimulatedCentral.withKBeacons(fleet: try Self.fleet(), pace: .unpaced).kbeacons
    var snapshot = try #require(await kbeacons.kbeacon(Self.application)?.snapshot())
    snapshot.bootloader = SimulatedBootloaderRecord(
      name: "DfuX", session: UInt64.max - 1, lastActivity: 1_700_000_000_123, command: [0, 1, 0xFF],
      image: Array(0...255))
    try store.save([Self.application: snapshot])
    #expect(try store.load()[Self.application] == snapshot)

    let text = try String(contentsOfFile: store.path, encoding: .utf8)
    try text.replacingOccurrences(of: #""lastActivityMs":"#, with: #""lastActivity":"#)
      .write(toFile: store.path, atomically: true, encoding: .utf8)
    #expect(throws: SimulatorStateStore.StateError.self) { _ = try store.load() }
  }

  /// On a site several processes share, a copy of another process's stay follows the record: one that says more
  /// was executed since replaces the copy, and one whose timer ran out lets the copy go (its links here kept
  /// resetting the copy's own timer, so it would have shadowed the device above long after every other process
  /// saw the application again).
  @Test func aCopyOfAnotherProcesssStayFollowsItsRecord() async throws {
    let fleet = try Self.fleet()
    let (central, kbeacons) = SimulatedCentral.withKBeacons(fleet: fleet, pace: .unpaced)
    let kbeacon = try #require(kbeacons.kbeacon(Self.application))
    let device = try #require(fleet.devices.first)
    let image = DFUTestPackages.application(10_000, version: 600)
    var record = SimulatedBootloaderRecord.entered(name: "DfuShared", at: Date(timeIntervalSinceNow: -1))
    record.command = image.initPacket
    record.image = Array(image.firmware.prefix(4096))
    await central.bootloaders.resume(kbeacon, device: device, record: record)
    let first = try #require(central.bootloaders.peripheral(ofApplication: Self.application))
    #expect(await first.target.executedProgress.image.count == 4096)

    var newer = record
    newer.image = Array(image.firmware.prefix(8192))
    newer.lastActivity = SimulatedBootloaderRecord.milliseconds(Date())
    await central.bootloaders.resume(kbeacon, device: device, record: newer)
    let second = try #require(central.bootloaders.peripheral(ofApplication: Self.application))
    #expect(second !== first)
    #expect(await second.target.executedProgress.image.count == 8192)

    var expired = newer
    expired.lastActivity = SimulatedBootloaderRecord.milliseconds(Date(timeIntervalSinceNow: -120))
    await central.bootloaders.resume(kbeacon, device: device, record: expired)
    #expect(!central.bootloaders.isInBootloader(Self.application))
  }
}
