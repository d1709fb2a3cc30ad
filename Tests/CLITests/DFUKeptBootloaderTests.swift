import BeaconCore
import Foundation
import Simulator
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// `dfu update` killed (`kill -9`) in the middle of a device's transfer, then `dfu update --resume last`, as
/// processes: the simulated device stays in its bootloader with the object it executed, as a real one does when
/// its gateway dies (`SimulatedBootloaderRecord`), and the resumed run finishes it from there — one install, by
/// the resumed process — and its neighbour (consecutive addresses: the bootloader answered at the neighbour's
/// address meanwhile) too.
@Suite(.timeLimit(.minutes(3))) struct DFUKeptBootloaderTests {
  static let package = DFUCommandTests.fixture("app_unsigned.zip")  // nrfutil 6.1.7: 10000 bytes, installs V660.51

  @Test func aResumeAfterAKillMidTransferFinishesTheDeviceFromItsBootloader() async throws {
    let folder = try LocalTools.temporaryDirectory("kept-bootloader")
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let (target, neighbour) = ("DD:35:2E:07:E1:00", "DD:35:2E:07:E1:01")
    let system = #""system": {"model": 12, "batteryPercent": 90, "firmware": "5.22"}"#
    let devices = [target, neighbour].enumerated().map { i, address in
      #"{"address": "\#(address)", "kind": "kbeaconPro", "name": "KBPro_K\#(i)", "intervalMs": 200, \#(system)}"#
    }
    let fleet = folder + "/fleet.json"
    try #"{"version": 1, "devices": [\#(devices.joined(separator: ",\n"))]}"#.write(
      toFile: fleet, atomically: true, encoding: .utf8)
    let state = folder + "/state"
    let command = [
      "dfu", "update", "--package", Self.package, "--adapter", "sim:\(fleet)", "--state-dir", state, "--scan", "2",
      "--parallel", "2", "--retry-delay", "0", "--reconnect-delay", "0", "--object-delay", "0", "--timeout", "5",
    ]
    let victim = try GatewayProcess(
      command, environment: [SimulatorPauseHook.environmentVariable: "in-bootloader:\(target)"])
    let stopped = await victim.line { $0.contains("test hook: stopped in the bootloader of \(target)") }
    victim.signal(SIGKILL)
    let (status, text) = await victim.finish()
    try #require(stopped, "the run ended before \(target)'s bootloader held an object: \(text)")
    #expect(status == SIGKILL)
    let store = SimulatorStateStore(stateDirectory: state, fleetFile: fleet)
    let left = try #require(try store.loadNewest()[BluetoothAddress(target)!]?.bootloader, "\(text)")
    #expect(left.image.count == 4096)

    let resumed = try await LocalTools.output(
      ApplyCrashTests.binary, command + ["--resume", "last", "--json"], in: folder, within: 120)
    #expect(resumed.status == 0, "\(resumed.stderr)")
    let installs = try store.writeLog.writes().filter { $0.what == "firmware" }
    #expect(
      Dictionary(grouping: installs, by: \.address).mapValues(\.count) == [target: 1, neighbour: 1],
      "\(installs.map { "\($0.address) by \($0.pid)" })\n\(resumed.stderr)")
    #expect(installs.first { $0.address == target }?.pid != victim.process.processIdentifier)
    #expect(try store.loadNewest()[BluetoothAddress(target)!]?.bootloader == nil)
    let report = try JSONSerialization.jsonObject(with: Data(resumed.stdout.utf8)) as? [String: Any]
    let results = (report?["devices"] as? [[String: Any]] ?? []).map { "\($0["address"] ?? "")=\($0["result"] ?? "")" }
    #expect(Set(results).isSuperset(of: ["\(target)=updated"]), "\(resumed.stdout)")
  }
}
