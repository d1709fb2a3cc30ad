import BeaconCore
import CampaignPipeline
import Fleet
import Foundation
import KBeacon
import Simulator
import Testing

@testable import BeaconProvisionCLI

/// Fleet-wide Nordic Secure DFU through the CLI path (`dfu update`) against simulated KBeacons: buttonless
/// entry (docs/protocols/nordic-dfu.md §2.2), the bootloader at address +1 running the real `SimulatedDFUTarget`, the new
/// version read back over a KBeacon session (docs/protocols/kbeacon.md §6.3 `ver`) and kept in the simulator's
/// state store.
@Suite(.isolatedState, .timeLimit(.minutes(5))) struct DFUFleetCampaignTests {
  /// Addresses 4 apart: a bootloader at +1 never lands on a neighbour's application address.
  static func address(_ i: Int) -> String { String(format: "DD:34:02:06:F0:%02X", i * 4) }
  static let password = Secret("0000000000000000")

  /// A fleet file of KBeacon Pros (System frame battery 90 %, `ver` V5.22 from the factory profile);
  /// `extra` adds keys to device i's entry.
  static func fleet(count: Int, extra: [Int: String] = [:]) throws -> String {
    let devices = (0..<count).map { i in
      #"{"address": "\#(address(i))", "kind": "kbeaconPro", "name": "KBPro_D\#(i)", "intervalMs": 300, "#
        + (extra[i] ?? #""system": {"model": 12, "batteryPercent": 90, "firmware": "5.22"}"#) + "}"
    }
    let path = NSTemporaryDirectory() + "dfu-fleet-\(UUID().uuidString).json"
    try #"{"version": 1, "devices": [\#(devices.joined(separator: ",\n"))]}"#.write(
      toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  /// The simulated adapter for the fleet file, restored from (and saving to) the test's state directory.
  static func central(_ fleet: String) throws -> SimulatedCentral {
    try SimulatorSessions.central(
      fleet: try CentralFactory.fleet(fleet), fleetFile: fleet, name: "sim", pace: .unpaced,
      stateDirectory: StateDirectory.resolve(nil))
  }

  /// `--timeout 10`: every response is awaited this long, and a timeout counts as a lost link; at 1 s, a CI run
  /// at load 21 lost one healthy device's link four times in a row. No device here needs the timeout to fail:
  /// the dropping device's link drops, which the client sees at once.
  static func update(_ arguments: [String], central: SimulatedCentral) async throws -> CampaignResult {
    let command = try DFUUpdateCommand.parse(
      arguments + [
        "--scan", "5", "--retry-delay", "0", "--reconnect-delay", "0", "--object-delay", "0", "--timeout", "10",
      ])
    return try await DFUInvocation(command: command, pace: .unpaced, central: central).run()
  }

  /// `ver` over a fresh authenticated KBeacon session.
  static func version(_ address: String, central: SimulatedCentral) async throws -> String? {
    let session = try await KBeaconOpener(central: central).openSession(
      Target(address: BluetoothAddress(address)!), password: password)
    let config = try await session.readConfiguration(sections: [.common])
    await session.close()
    return config.common.fields["ver"]?.stringValue
  }

  @Test func oneFleetKBeaconIsUpdatedThroughItsBootloaderAtAddressPlusOne() async throws {
    let fleet = try Self.fleet(count: 1)
    let package = try DFUFleetPackages.application(version: 530)
    defer { for path in [fleet, package] { try? FileManager.default.removeItem(atPath: path) } }
    let central = try Self.central(fleet)
    #expect(try await Self.version(Self.address(0), central: central) == "V5.22")

    let result = try await Self.update(["--package", package, "--adapter", "sim:\(fleet)"], central: central)
    #expect(result.version?.description == "5.30")  // fw_version 530 through KKMFirmwareVersion
    #expect(result.summary.outcomes[Self.address(0)]?.state == .verified)
    #expect(result.reports[Self.address(0)]?.bytes == 10_000)
    #expect(result.reports[Self.address(0)]?.from?.description == "5.22")
    // the buttonless 01 brought up the bootloader; every DFU link went to DD:34:02:06:F0:01 (00 + 1)
    #expect(central.bootloaders.entered == [BluetoothAddress(Self.address(0))!])
    #expect(!central.bootloaders.bootloaderLinks.isEmpty)
    #expect(Set(central.bootloaders.bootloaderLinks) == [BluetoothAddress("DD:34:02:06:F0:01")!])
    // the report says where the bootloader answered: +1, connected to as a random address, found by the
    // name it was given for this device's first attempt (docs/protocols/nordic-dfu.md §2.2 Set Advertisement Name)
    let report = try #require(result.reports[Self.address(0)])
    #expect(
      report.transfer
        == FirmwareTransferResult(
          bootloader: BluetoothAddress("DD:34:02:06:F0:01")!, bootloaderType: .random,
          bootloaderName: "DfuDD340206F000-1", bytesDelivered: 10_000))
    #expect(report.imageBytes == nil, "a whole transfer delivered the whole image")
    #expect(central.bootloaders.bootloader(ofApplication: BluetoothAddress(Self.address(0))!) == nil)
    #expect(await central.bootloaders.sessions.first?.bootloaderName == "DfuDD340206F000-1")
    let json = try DFUCampaignReport.json(result)
    #expect(
      json.contains(#""bootloader": "DD:34:02:06:F0:01""#) && json.contains(#""bootloaderAddressType": "random""#))
    #expect(json.contains(#""bootloaderName": "DfuDD340206F000-1""#))
    #expect(DFUCampaignReport.table(result).contains("(bootloader DfuDD340206F000-1 at DD:34:02:06:F0:01 random)"))
    #expect(!central.bootloaders.isInBootloader(BluetoothAddress(Self.address(0))!))
    #expect(try await Self.version(Self.address(0), central: central) == "V5.30")
    // a new simulation of the same fleet (the next command) finds the device updated
    #expect(try await Self.version(Self.address(0), central: try Self.central(fleet)) == "V5.30")
  }

  @Test func twentyDevicesThreeFaultyThenASecondCampaignTransfersNothing() async throws {
    let dropping = 3
    let lowBattery = 7
    let otherHardware = 12
    let system = #""system": {"model": 12, "batteryPercent": 90, "firmware": "5.22"}"#
    let fleet = try Self.fleet(
      count: 20,
      extra: [
        // every transfer drops at byte 3000 and then on every data write: no retry gets further
        dropping: system
          + #", "dfu": {"inactivityTimeoutMs": 300, "faults": {"dropLinkAtByte": 3000, "always": true}}"#,
        lowBattery: #""system": {"model": 12, "batteryPercent": 12, "firmware": "5.22"}"#,
        otherHardware: system + #", "kbeacon": {"settings": {"hver": "V2.0"}}"#,
      ])
    let package = try DFUFleetPackages.application(version: 530)
    defer { for path in [fleet, package] { try? FileManager.default.removeItem(atPath: path) } }
    let central = try Self.central(fleet)
    let arguments = [
      "--package", package, "--adapter", "sim:\(fleet)", "--parallel", "4", "--attempts", "2", "--hardware", "V1.0",
    ]

    let first = try await Self.update(arguments, central: central)
    let outcomes = first.summary.outcomes
    #expect(outcomes.count == 20)
    #expect(
      outcomes.values.filter { $0.state == .verified }.count == 17,
      "\(outcomes.filter { $0.value.state != .verified })")
    #expect(outcomes[Self.address(dropping)]?.state == .failed)
    #expect(outcomes[Self.address(lowBattery)] == .skipped("battery 12% is below the floor of 30%"))
    #expect(outcomes[Self.address(otherHardware)] == .skipped("hardware version V2.0 is not V1.0"))
    // refused before any transfer: neither the low-battery nor the other-hardware device jumped
    let entered = Set(central.bootloaders.entered.map(\.description))
    #expect(!entered.contains(Self.address(lowBattery)) && !entered.contains(Self.address(otherHardware)))
    #expect(entered.contains(Self.address(dropping)))

    // the dropping device's bootloader gives up after 300 ms idle and its old application comes back
    let droppingAddress = BluetoothAddress(Self.address(dropping))!
    await central.bootloaders.waitUntilLeft(droppingAddress)
    #expect(!central.bootloaders.isInBootloader(droppingAddress))
    for i in 0..<20 {
      let expected = [dropping, lowBattery, otherHardware].contains(i) ? "V5.22" : "V5.30"
      #expect(try await Self.version(Self.address(i), central: central) == expected, "device \(i)")
    }

    // a second campaign, in a new simulation restored from the state store, finds the 17 updated
    let again = try Self.central(fleet)
    let second = try await Self.update(arguments, central: again)
    for i in 0..<20 where ![dropping, lowBattery, otherHardware].contains(i) {
      #expect(
        second.summary.outcomes[Self.address(i)] == .skipped("firmware 5.30 is already at or above 5.30"), "device \(i)"
      )
    }
    // Only the dropping device goes back to its bootloader (once or twice, as its idle timeout and the retry race).
    #expect(Set(again.bootloaders.entered.map(\.description)) == [Self.address(dropping)])
    #expect(second.reports.isEmpty)
  }

  @Test func aDropOnceAndACorruptedPacketStillEndUpdated() async throws {
    let system = #""system": {"model": 12, "batteryPercent": 90, "firmware": "5.22"}"#
    let fleet = try Self.fleet(
      count: 2,
      extra: [
        0: system + #", "dfu": {"faults": {"dropLinkAtByte": 4000}}"#,
        1: system + #", "dfu": {"faults": {"corruptByteAt": 6000}}"#,
      ])
    let package = try DFUFleetPackages.application(version: 530)
    defer { for path in [fleet, package] { try? FileManager.default.removeItem(atPath: path) } }
    let central = try Self.central(fleet)
    let result = try await Self.update(
      ["--package", package, "--adapter", "sim:\(fleet)", "--attempts", "1"], central: central)
    // one attempt each: the transfer itself reconnected (drop) or re-sent the object (CRC mismatch)
    #expect(result.summary.outcomes.values.allSatisfy { $0.state == .verified }, "\(result.summary.outcomes)")
    #expect(central.bootloaders.entered.count == 2)
    // the dropped device's bootloader was reached more than once (the link came back after the drop)
    #expect(central.bootloaders.bootloaderLinks.filter { $0.description == "DD:34:02:06:F0:01" }.count >= 2)
    let sessions = Dictionary(uniqueKeysWithValues: central.bootloaders.sessions.map { ($0.address.description, $0) })
    #expect(await sessions[Self.address(0)]?.linkDrops == 1)
    // the corruption fired (the fault is consumed) and the target still activated the package's image
    #expect(await sessions[Self.address(1)]?.target.faults.corruptByteAt == nil)
    #expect(
      await sessions[Self.address(1)]?.target.activated.first?.firmware == DFUFleetPackages.bytes(10_000, seed: 0xF1EE7)
    )
    for i in 0..<2 { #expect(try await Self.version(Self.address(i), central: central) == "V5.30") }
  }
}
