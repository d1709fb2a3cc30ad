import BeaconCore
import Fleet
import Foundation
import JSON
import NordicDFU
import Simulator
import Testing

@testable import BeaconProvisionCLI

/// The simulated fleet's DFU side on its own (docs/protocols/nordic-dfu.md §2.2, §2.6): what a scan sees while a KBeacon
/// is in its bootloader, the inactivity timeout, the fleet file's `dfu` section, and a refused package.
@Suite(.isolatedState, .timeLimit(.minutes(5))) struct DFUFleetSimulatorTests {
  /// Jumps the device at `address` into its bootloader the way `BLEDFULinkFactory` does: `02 "Dfu0700"`
  /// then `01` on the buttonless characteristic 8EC90003 (indications enabled first).
  static func jump(_ address: BluetoothAddress, central: SimulatedCentral) async throws {
    let client = GATTClient(bearer: try await central.connect(to: address, type: .public, timeout: .seconds(1)))
    let database = try await client.discover()
    let buttonless = try #require(database.characteristic(DFUGATT.buttonlessWithoutBonds, inService: DFUGATT.service))
    _ = try await client.subscribe(to: buttonless)
    // 02 07 'D' 'f' 'u' '0' '7' '0' '0': set the bootloader name (length 7)
    try await client.write([0x02, 0x07] + Array("Dfu0700".utf8), to: buttonless.valueHandle)
    // 01: enter the bootloader; the device answers and drops the link
    try? await client.write([0x01], to: buttonless.valueHandle)
    await client.close()
  }

  /// A fleet file of one KBeacon Pro on V5.22 whose bootloader gives up after `bootloaderInactivityMs`.
  static func oneV522Device(bootloaderInactivityMs: Int) throws -> String {
    try DFUFleetCampaignTests.fleet(
      count: 1,
      extra: [
        0: #""system": {"model": 12, "batteryPercent": 90, "firmware": "5.22"}, "#
          + #""dfu": {"inactivityTimeoutMs": \#(bootloaderInactivityMs)}"#
      ])
  }

  static func reports(_ central: SimulatedCentral, count: Int) async throws -> [AdvertisingReport] {
    var seen: [AdvertisingReport] = []
    for try await report in central.scan(ScanParameters(active: false)) {
      seen.append(report)
      if seen.count >= count { break }
    }
    return seen
  }

  @Test func theBootloaderAdvertisesAtAddressPlusOneThenIdlesOutToTheOldApplication() async throws {
    // 8 s: long enough that the bootloader does not idle out between the discovery's requests on a loaded
    // machine (3 s did, under ThreadSanitizer: the link closed mid-discovery), short enough to wait for.
    let fleet = try Self.oneV522Device(bootloaderInactivityMs: 8000)
    defer { try? FileManager.default.removeItem(atPath: fleet) }
    let central = try DFUFleetCampaignTests.central(fleet)
    let application = BluetoothAddress("DD:34:02:06:F0:00")!
    try await Self.jump(application, central: central)
    #expect(central.bootloaders.isInBootloader(application))

    let during = try await Self.reports(central, count: 20)
    let bootloader = BluetoothAddress("DD:34:02:06:F0:01")!
    let adverts = during.filter { $0.address == bootloader }
    #expect(!adverts.isEmpty)
    #expect(during.allSatisfy { $0.address != application })  // the application is silent
    let data = try #require(adverts.first).data
    // 02 01 06: Flags; 03 03 59 FE: Complete List of 16-bit UUIDs = FE59; 08 09 "Dfu0700": Complete Local Name
    #expect(data == [0x02, 0x01, 0x06, 0x03, 0x02, 0x59, 0xFE, 0x08, 0x09] + Array("Dfu0700".utf8))
    #expect(adverts.allSatisfy { $0.kind == .connectable })
    // the bootloader answers a connect with the Secure DFU control point
    let client = GATTClient(bearer: try await central.connect(to: bootloader, type: .random, timeout: .seconds(1)))
    #expect(try await client.discover().characteristic(DFUGATT.controlPoint, inService: DFUGATT.service) != nil)
    await client.close()

    await central.bootloaders.waitUntilLeft(application)
    #expect(!central.bootloaders.isInBootloader(application))
    let after = try await Self.reports(central, count: 5)
    #expect(after.allSatisfy { $0.address == application })
    #expect(try await DFUFleetCampaignTests.version(application.description, central: central) == "V5.22")
  }

  @Test func theFleetFileDFUSectionIsStrictAndNamesItsPath() throws {
    func error(_ dfu: String) -> JSONDiagnostic? {
      let json =
        #"{"version": 1, "devices": [{"address": "DD:34:02:06:F0:00", "kind": "kbeaconPro", "system": {"model": 12, "batteryPercent": 90, "firmware": "5.22"}, "dfu": \#(dfu)}]}"#
      do {
        _ = try SimulatedFleet.decode(Data(json.utf8), file: "fleet.json")
        return nil
      } catch { return error }
    }
    #expect(
      error(#"{"hardwareVersion": 52, "faults": {"dropLinkAtByte": 100, "always": true, "corruptByteAt": 5}}"#) == nil)
    #expect(error(#"{"faults": {"dropAt": 100}}"#)?.path.description == "$.devices[0].dfu.faults.dropAt")
    #expect(error(#"{"hwVersion": 52}"#)?.path.description == "$.devices[0].dfu.hwVersion")
    #expect(error(#"{"inactivityTimeoutMs": 5}"#)?.path.description == "$.devices[0].dfu.inactivityTimeoutMs")
    #expect(error(#"{"faults": {"always": true}}"#)?.path.description == "$.devices[0].dfu.faults.always")
    #expect(error(#"{"faults": {"dropLinkAtByte": 100, "dropsAfterward": 3}}"#) == nil)
    for (faults, message) in [
      (#"{"dropsAfterward": 3}"#, "dropsAfterward needs dropLinkAtByte"),
      (#"{"dropLinkAtByte": 100, "dropsAfterward": 0}"#, "0 is outside 1…1000"),
      (#"{"dropLinkAtByte": 100, "dropsAfterward": 3, "always": true}"#, "give always or dropsAfterward, not both"),
    ] {
      let found = error(#"{"faults": \#(faults)}"#)
      #expect(found?.path.description == "$.devices[0].dfu.faults.dropsAfterward" && found?.message == message)
    }
    #expect(error(#"{"buttonless": "sdk13"}"#) == nil)
    let buttonless = error(#"{"buttonless": "sdk12"}"#)
    #expect(buttonless?.path.description == "$.devices[0].dfu.buttonless")
    #expect(buttonless?.message == "'sdk12' is not a buttonless generation (allowed: sdk14, sdk13)")
  }

  @Test func aRefusedPackageExitsBeforeAnyConnection() async throws {
    let fleet = try DFUFleetCampaignTests.fleet(count: 1)
    let package = try DFUFleetPackages.application(version: 530, hardware: 53)
    defer { for path in [fleet, package] { try? FileManager.default.removeItem(atPath: path) } }
    let central = try DFUFleetCampaignTests.central(fleet)
    do {
      _ = try await DFUFleetCampaignTests.update(["--package", package, "--adapter", "sim:\(fleet)"], central: central)
      Issue.record("a package for hardware 53 was accepted for hw-version 52 devices")
    } catch let failure as CLIFailure {
      #expect(failure.message.contains("refused before connecting") && failure.message.contains("hw"))
    }
    #expect(central.bootloaders.entered.isEmpty)
  }
}

extension DFUFleetSimulatorTests {
  @Test func updateIsTheDefaultDFUSubcommand() throws {
    let parsed = try BeaconProvision.parseAsRoot([
      "dfu", "--package", "app.zip", "--adapter", "sim", "--min-battery", "0",
    ])
    let update = try #require(parsed as? DFUUpdateCommand)
    #expect(update.package == "app.zip" && update.minimumBattery == 0)
    #expect(
      try #require(BeaconProvision.parseAsRoot(["dfu", "update", "--package", "a.zip"]) as? DFUUpdateCommand)
        .minimumBattery
        == 30)
  }

  @Test func kkmVersionMappingBothWays() {
    #expect(KKMFirmwareVersion.text(fwVersion: 530) == "V5.30")
    #expect(KKMFirmwareVersion.text(fwVersion: 1203) == "V12.03")
    #expect(KKMFirmwareVersion.fwVersion(text: "V5.22") == 522)
    #expect(KKMFirmwareVersion.fwVersion(text: "5.30") == 530)
    #expect(KKMFirmwareVersion.fwVersion(text: "V5.3") == nil)  // two minor digits or it is not ours
    #expect(KKMFirmwareVersion.fwVersion(text: "V5.30.1") == nil)
  }
}

extension DFUFleetSimulatorTests {
  @Test func resumeFinishesADeviceLeftWaitingInItsBootloader() async throws {
    // a run that stopped mid-transfer: the journal says "transferring", the device sits in its bootloader
    // (its application silent, so the resume's scan does not hear it)
    let fleet = try Self.oneV522Device(bootloaderInactivityMs: 600_000)
    let package = try DFUFleetPackages.application(version: 530)
    defer { for path in [fleet, package] { try? FileManager.default.removeItem(atPath: path) } }
    let central = try DFUFleetCampaignTests.central(fleet)
    let application = BluetoothAddress("DD:34:02:06:F0:00")!
    try await Self.jump(application, central: central)
    #expect(central.bootloaders.isInBootloader(application))
    let journal = try Journal(path: StateDirectory.resolve(nil).appendingPathComponent("journal.sqlite"))
    let run = try await journal.createRun(
      kind: "dfu", source: package, adapter: "sim", addresses: [application.description])
    try await journal.record(
      run: run, address: application.description, state: .working, step: "transferring",
      changes: [JournalChange(scope: "device", key: "ver", old: "5.22", new: "5.30")])

    let result = try await DFUFleetCampaignTests.update(
      ["--package", package, "--adapter", "sim:\(fleet)", "--resume", run], central: central)
    #expect(result.summary.run == run)
    #expect(result.summary.outcomes[application.description]?.state == .verified)
    #expect(result.reports[application.description]?.from?.description == "5.22")  // from the journal
    #expect(central.bootloaders.entered == [application])  // no second jump: it went straight to +1
    #expect(try await DFUFleetCampaignTests.version(application.description, central: central) == "V5.30")
  }
}

extension DFUFleetSimulatorTests {
  @Test func selectionByAddressAndNameAndAnUnknownBatteryIsSkipped() async throws {
    let fleet = try DFUFleetCampaignTests.fleet(
      count: 3,
      extra: [
        // 0x2080 scan response of two bytes (6D 01): too short to carry a battery level, and no System frame
        2: #""sensor": {"temperature": 21.5}, "kkmScanResponse": "6D01""#
      ])
    let package = try DFUFleetPackages.application(version: 530)
    defer { for path in [fleet, package] { try? FileManager.default.removeItem(atPath: path) } }
    let central = try DFUFleetCampaignTests.central(fleet)
    let a = (0..<3).map(DFUFleetCampaignTests.address)
    let byAddress = try await DFUFleetCampaignTests.update(
      ["--package", package, "--adapter", "sim:\(fleet)", "--address", a[0], "--address", a[2]], central: central)
    #expect(Set(byAddress.summary.outcomes.keys) == [a[0], a[2]])
    #expect(byAddress.summary.outcomes[a[0]]?.state == .verified)
    #expect(
      byAddress.summary.outcomes[a[2]]
        == .skipped("battery level unknown (not in its advertisements); use --min-battery 0 to update it anyway"))
    let byName = try await DFUFleetCampaignTests.update(
      ["--package", package, "--adapter", "sim:\(fleet)", "--name", "KBPro_D1", "--min-battery", "0"], central: central)
    #expect(Set(byName.summary.outcomes.keys) == [a[1]])
    #expect(byName.summary.outcomes[a[1]]?.state == .verified)
    // --min-battery 0 means no floor: the device whose battery is unknown is updated too
    let noFloor = try await DFUFleetCampaignTests.update(
      ["--package", package, "--adapter", "sim:\(fleet)", "--address", a[2], "--min-battery", "0"], central: central)
    #expect(noFloor.summary.outcomes[a[2]]?.state == .verified)
  }
}

extension DFUFleetSimulatorTests {
  /// A factory that found the device already in its bootloader (a resumed run: no jump of its own) and then
  /// lost that bootloader — it ran the image and left, the link lost right after the last Execute; here its
  /// inactivity timeout — does not make the application jump again, which would send the whole image a
  /// second time: the reopen fails, and the visit's next attempt reads what the device runs.
  @Test func aFactoryThatFoundTheBootloaderWithoutAJumpNeverJumpsLater() async throws {
    // 8 s, as above: a bootloader that idled out before the first open would be jumped into by that open.
    let fleet = try Self.oneV522Device(bootloaderInactivityMs: 8000)
    defer { try? FileManager.default.removeItem(atPath: fleet) }
    let central = try DFUFleetCampaignTests.central(fleet)
    let application = BluetoothAddress("DD:34:02:06:F0:00")!
    try await Self.jump(application, central: central)
    let factory = BLEDFULinkFactory(
      central: central, device: application, addressType: .public, connectTimeout: .seconds(1),
      scanTimeout: .milliseconds(500), silenceWindow: .milliseconds(100))
    try await factory.open(image: 0).close()
    #expect(await factory.bootloaderAddress == BluetoothAddress("DD:34:02:06:F0:01"))
    await central.bootloaders.waitUntilLeft(application)
    #expect(!central.bootloaders.isInBootloader(application))
    await #expect(throws: (any Error).self) { _ = try await factory.open(image: 0) }
    #expect(central.bootloaders.entered == [application])
    #expect(await !factory.jumped)
  }
}
