import BeaconCore
import Fleet
import Foundation
import Simulator
import Testing

@testable import BeaconProvisionCLI

/// A device whose update failed after it jumped stays in its bootloader, which advertises at the device's
/// address + 1 — its neighbour's address in a batch of consecutive addresses. A KBeacon link opened to that
/// neighbour meanwhile reaches the bootloader: it says so (`BootloaderAtAddress`, worth another attempt), not
/// "no KBeacon configuration service", and nothing is written.
@Suite(.isolatedState, .timeLimit(.minutes(2))) struct BootloaderAtAddressTests {
  @Test func aLinkThatReachesANeighboursBootloaderSaysSoAndIsRetryable() async throws {
    let (failing, neighbour) = ("DD:34:02:06:F4:00", "DD:34:02:06:F4:01")
    let system = #""system": {"model": 12, "batteryPercent": 90, "firmware": "5.12"}"#
    let fleet = NSTemporaryDirectory() + "bootloader-at-address-\(UUID().uuidString).json"
    let devices = [
      #"{"address": "\#(failing)", "kind": "kbeaconPro", "name": "KBPro_F", "intervalMs": 300, \#(system), "#
        + #""dfu": {"inactivityTimeoutMs": 600000, "faults": {"dropLinkAtByte": 1000, "always": true}}}"#,
      #"{"address": "\#(neighbour)", "kind": "kbeaconPro", "name": "KBPro_N", "intervalMs": 300, \#(system)}"#,
    ]
    try #"{"version": 1, "devices": [\#(devices.joined(separator: ",\n"))]}"#.write(
      toFile: fleet, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: fleet) }
    let central = try DFUFleetCampaignTests.central(fleet)
    let result = try await DFUFleetCampaignTests.update(
      [
        "--package", CatalogueFolderCampaignTests.example + "/KBPro_SIM_V514.zip", "--address", failing,
        "--attempts", "1", "--adapter", "sim:\(fleet)",
      ], central: central)
    #expect(result.summary.outcomes[failing]?.state == .failed, "\(result.summary.outcomes)")

    let error = await #expect(throws: BootloaderAtAddress.self) {
      _ = try await KBeaconOpener(central: central).openSession(
        Target(address: BluetoothAddress(neighbour)!), password: DFUFleetCampaignTests.password)
    }
    #expect(error?.failureKind == .bootloaderAtAddress)
    #expect(error?.failureKind.isRetryable == true)
    #expect(error?.description.contains("a Secure DFU bootloader answers at this address") == true)
  }

  /// A resumed run finds a device the journal left mid-transfer, still in its bootloader at the next device's
  /// address. The next device (even, so started first) waits for it instead of meeting that bootloader: the
  /// interrupted device is quarantined before any visit (`FirmwareWork.prepare`). Every device ends updated,
  /// the next one in a single attempt.
  @Test func aResumeKeepsTheDeviceAboveAnInterruptedOneOutUntilItIsFinished() async throws {
    let addresses = ["DD:34:02:06:F6:00", "DD:34:02:06:F6:01", "DD:34:02:06:F6:02"]
    let system = #""system": {"model": 12, "batteryPercent": 90, "firmware": "5.22"}"#
    let fleet = NSTemporaryDirectory() + "bootloader-resume-\(UUID().uuidString).json"
    let devices = addresses.enumerated().map { i, address in
      #"{"address": "\#(address)", "kind": "kbeaconPro", "name": "KBPro_\#(i)", "intervalMs": 300, \#(system), "#
        + #""dfu": {"inactivityTimeoutMs": 600000}}"#
    }
    try #"{"version": 1, "devices": [\#(devices.joined(separator: ",\n"))]}"#.write(
      toFile: fleet, atomically: true, encoding: .utf8)
    let package = try DFUFleetPackages.application(version: 530)
    defer { for path in [fleet, package] { try? FileManager.default.removeItem(atPath: path) } }
    let central = try DFUFleetCampaignTests.central(fleet)
    let interrupted = BluetoothAddress(addresses[1])!
    try await DFUFleetSimulatorTests.jump(interrupted, central: central)
    let journal = try Journal(path: StateDirectory.resolve(nil).appendingPathComponent("journal.sqlite"))
    let run = try await journal.createRun(kind: "dfu", source: package, adapter: "sim", addresses: addresses)
    try await journal.record(
      run: run, address: addresses[1], state: .working, step: "transferring",
      changes: [JournalChange(scope: "device", key: "ver", old: "5.22", new: "5.30")])

    let result = try await DFUFleetCampaignTests.update(
      ["--package", package, "--adapter", "sim:\(fleet)", "--resume", run, "--parallel", "3"], central: central)
    #expect(addresses.map { result.summary.outcomes[$0]?.state } == [.verified, .verified, .verified])
    #expect(try await journal.device(run: run, address: addresses[2])?.attempts == 1)
    for address in addresses {
      #expect(try await DFUFleetCampaignTests.version(address, central: central) == "V5.30")
    }
  }
}
