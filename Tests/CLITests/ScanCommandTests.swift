import ArgumentParser
import BeaconCore
import Foundation
import Simulator
import Synchronization
import Testing

@testable import BeaconProvisionCLI

/// `scan` run in process against the unpaced simulated demo fleet.
/// Each test has its own state directory: a saved `apply` would change what the simulated KBeacons send.
@Suite(.isolatedState, .timeLimit(.minutes(5))) struct ScanCommandTests {
  /// Lines emitted during a scan (the runner calls from its child task).
  final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    func add(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
  }

  static func run(_ arguments: [String], mode: ScanRunner.Mode) async throws -> (output: String?, lines: [String]) {
    let command = try ScanCommand.parseAsRoot(arguments) as! ScanCommand
    let central = try await CentralFactory.make(command.adapterOptions.adapter, pace: .unpaced)
    let lines = Lines()
    let output = try await command.runner(mode: mode).run(central: central) { line in lines.add(line) }
    return (output, lines.all)
  }

  @Test func jsonContainsTheDemoFleetWithDecodedValues() async throws {
    let (output, _) = try await Self.run(["--adapter", "sim", "--duration", "5", "--json"], mode: .json)
    let json = try #require(output)
    let records = try JSONDecoder().decode([DeviceRecord].self, from: Data(json.utf8))
    #expect(records.map(\.address) == DemoFleet.fleet.devices.map(\.address).sorted())

    let k6 = try #require(records.first { $0.address.description == "DD:34:02:06:D0:6C" })
    #expect(k6.name == "KBPro_214810" && k6.connectable == true && k6.reportKinds == ["ADV_IND", "SCAN_RSP"])
    guard case .kSensor(let sensor)? = k6.frame(.kSensor),
      case .kkmScanResponse(let response)? = k6.frame(.kkmScanResponse)
    else {
      Issue.record("K6 frames: \(k6.frames)")
      return
    }
    #expect(sensor.batteryMillivolts == 3591 && sensor.temperature == 25.1640625 && sensor.humidity == 34.30859375)
    #expect(sensor.acceleration == .init(x: -4, y: -20, z: 1003))
    #expect(response.batteryPercent == 100)

    let store = try #require(records.first { $0.address.description == "AC:23:3F:00:00:01" })
    guard case .iBeacon(let beacon)? = store.frame(.iBeacon) else {
      Issue.record("no iBeacon")
      return
    }
    #expect(beacon.major == 7 && beacon.minor == 1 && beacon.measuredPower == -59 && store.name == "Store-Entrance")
    #expect(json.contains(#""uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0""#))

    let nonConnectable = try #require(records.first { $0.address.description == "AC:23:3F:00:00:04" })
    #expect(nonConnectable.connectable == false && nonConnectable.reportKinds == ["ADV_NONCONN_IND"])

    let url = try #require(records.first { $0.address.description == "E1:DD:57:00:00:03" })
    guard case .eddystoneURL(let u)? = url.frame(.eddystoneURL) else {
      Issue.record("no URL")
      return
    }
    #expect(u.url == "https://www.example.com/beacons")

    let pro = try #require(records.first { $0.address.description == "DD:34:02:06:D1:02" })
    guard case .kkmSystem(let system)? = pro.frame(.kkmSystem) else {
      Issue.record("no System")
      return
    }
    #expect(system.firmwareVersion == "5.12" && system.macAddress == pro.address && system.batteryPercent == 98)
    for record in records {
      if let min = record.rssi.min, let max = record.rssi.max, let latest = record.rssi.latest {
        #expect(min <= latest && latest <= max)
      } else {
        Issue.record("\(record.address) has no RSSI")
      }
    }
  }

  @Test func passiveScanHasNoNamesFromScanResponses() async throws {
    let (output, _) = try await Self.run(["--adapter", "sim", "--duration", "3", "--passive", "--json"], mode: .json)
    let records = try JSONDecoder().decode([DeviceRecord].self, from: Data(try #require(output).utf8))
    #expect(!records.isEmpty && records.allSatisfy { $0.name == nil && $0.scanResponses == 0 })
  }

  @Test func jsonLinesGiveOneObjectPerDevicePerWindow() async throws {
    let (output, lines) = try await Self.run(
      ["--adapter", "sim", "--duration", "3", "--window", "1", "--jsonl"], mode: .jsonLines)
    #expect(output == nil)
    struct Line: Decodable {
      var window: Int
      var start: Double
      var end: Double
      var device: DeviceRecord
    }
    let decoded = try lines.map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
    #expect(Set(decoded.map(\.window)) == [0, 1, 2])
    #expect(Set(decoded.map(\.device.address)) == Set(DemoFleet.fleet.devices.map(\.address)))
    for window in 0...2 {
      let addresses = decoded.filter { $0.window == window }.map(\.device.address)
      #expect(Set(addresses).count == addresses.count, "one line per device in window \(window)")
      // Every device advertising at least every 900 ms (plus ≤ 10 ms advDelay) is heard in each 1 s window;
      // 1000 ms devices may fall between two windows.
      let frequent = Set(DemoFleet.fleet.devices.filter { $0.intervalMs <= 900 }.map(\.address))
      #expect(frequent.isSubset(of: Set(addresses)), "window \(window)")
    }
    #expect(decoded.allSatisfy { $0.device.firstSeen >= $0.start && $0.device.firstSeen < $0.end })
  }

  @Test func rssiThresholdDropsWeakDevices() async throws {
    let (output, _) = try await Self.run(
      ["--adapter", "sim", "--duration", "3", "--rssi-threshold", "-70", "--json"], mode: .json)
    let records = try JSONDecoder().decode([DeviceRecord].self, from: Data(try #require(output).utf8))
    #expect(!records.isEmpty && records.count < DemoFleet.fleet.devices.count)
    #expect(records.allSatisfy { ($0.rssi.min ?? -128) >= -70 })
    #expect(!records.contains { $0.address.description == "E1:DD:57:00:00:07" })  // mean −88 dBm
  }

  @Test func plainLinesNameDevicesAndFrames() async throws {
    let (_, lines) = try await Self.run(["--adapter", "sim", "--duration", "2"], mode: .lines)
    #expect(lines.count == DemoFleet.fleet.devices.count)
    let k6 = try #require(lines.first { $0.contains("DD:34:02:06:D0:6C") })
    #expect(k6.contains("KBPro_214810") && k6.contains("KSensor 3591mV 25.16°C 34.31% acc(-4,-20,1003)"))
  }

  @Test func fleetFileIsUsedAndItsErrorsAreOneLine() async throws {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("scan-fleet-\(UUID().uuidString).json")
    defer { try? FileManager.default.removeItem(at: url) }
    try Data(
      #"{"version":1,"devices":[{"address":"AC:23:3F:00:00:42","kind":"iBeacon","iBeacon":{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":4,"minor":2}}]}"#
        .utf8
    ).write(to: url)
    let (output, _) = try await Self.run(["--adapter", "sim:\(url.path)", "--duration", "2", "--json"], mode: .json)
    let records = try JSONDecoder().decode([DeviceRecord].self, from: Data(try #require(output).utf8))
    #expect(records.map(\.address.description) == ["AC:23:3F:00:00:42"])

    try Data(#"{"version":1,"devices":[{"address":"AC:23:3F:00:00:42","kind":"iBeacon","colour":"red"}]}"#.utf8).write(
      to: url)
    await #expect(throws: CLIFailure.self) { try await CentralFactory.make(.simulated(fleetFile: url.path)) }
    do {
      _ = try await CentralFactory.make(.simulated(fleetFile: url.path))
    } catch let failure as CLIFailure {
      #expect(
        failure.message.hasPrefix(
          "\(url.path):1:73: $.devices[0].colour: unknown key \"colour\" "), "\(failure.message)")
    }
  }

  /// Advertising data framed wrong, sent verbatim by the simulated radio (`rawAdvertising`): a length byte
  /// running past the end, a zero length before junk, an iBeacon cut short, a chain of 0xFF lengths, and a
  /// manufacturer structure too short for its company ID. Every device is listed, the well-formed iBeacon
  /// beside them is decoded, the cut iBeacon shows as a malformed iBeacon frame and the name before the zero
  /// length survives.
  @Test func advertisingDataFramedWrongIsListedAndDecodedAsFarAsItGoes() async throws {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("scan-raw-ad-\(UUID().uuidString).json")
    defer { try? FileManager.default.removeItem(at: url) }
    let raw = [
      "AC:23:3F:00:0A:01": "1AFF4C000215E2C5",
      "AC:23:3F:00:0A:02": "0201060509626164210000FFFF1AFF",
      "AC:23:3F:00:0A:03": "0AFF4C000215E2C56DB5DF",
      "AC:23:3F:00:0A:04": String(repeating: "FF", count: 240),
      "AC:23:3F:00:0A:05": "02FF4C",
    ]
    let devices = raw.sorted { $0.key < $1.key }.map {
      #"{"address": "\#($0.key)", "kind": "iBeacon", "intervalMs": 100, "rawAdvertising": ["\#($0.value)"]}"#
    }
    let control =
      #"{"address": "AC:23:3F:00:0A:00", "kind": "iBeacon", "iBeacon": {"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 4, "minor": 2}}"#
    try Data(#"{"version": 1, "devices": [\#(([control] + devices).joined(separator: ", "))]}"#.utf8).write(to: url)
    let (output, _) = try await Self.run(["--adapter", "sim:\(url.path)", "--duration", "2", "--json"], mode: .json)
    let records = try JSONDecoder().decode([DeviceRecord].self, from: Data(try #require(output).utf8))
    #expect(records.map(\.address.description) == ["AC:23:3F:00:0A:00"] + raw.keys.sorted())
    let record = { (address: String) in records.first { $0.address.description == address } }
    guard case .iBeacon(let beacon)? = record("AC:23:3F:00:0A:00")?.frame(.iBeacon) else {
      Issue.record("the control iBeacon was not decoded: \(String(describing: record("AC:23:3F:00:0A:00")))")
      return
    }
    #expect(beacon.major == 4 && beacon.minor == 2)
    #expect(record("AC:23:3F:00:0A:02")?.name == "bad!")
    #expect(record("AC:23:3F:00:0A:03")?.frame(.iBeacon)?.isMalformed == true)
    for address in ["AC:23:3F:00:0A:01", "AC:23:3F:00:0A:04", "AC:23:3F:00:0A:05"] {
      #expect(record(address)?.frames.allSatisfy(\.isMalformed) == true, "\(String(describing: record(address)))")
    }
  }

  @Test func liveAdapterFailsWithOneClearLine() async throws {
    for choice: AdapterChoice? in [.live("hci0"), nil] {
      do {
        _ = try await CentralFactory.make(choice)
        Issue.record("a live central was returned")
      } catch let failure as CLIFailure {
        #expect(failure.message.contains("--adapter sim") && !failure.message.contains("\n"))
      }
    }
  }

  @Test func optionsAreValidated() {
    #expect(throws: (any Error).self) { try ScanCommand.parseAsRoot(["--json", "--jsonl"]) }
    #expect(throws: (any Error).self) { try ScanCommand.parseAsRoot(["--duration", "0"]) }
    #expect(throws: (any Error).self) { try ScanCommand.parseAsRoot(["--window", "-1"]) }
    let parsed =
      try? ScanCommand.parseAsRoot(["--rssi-threshold", "-80", "--window", "2", "--passive"]) as? ScanCommand
    #expect(parsed?.settings == DiscoverySettings(window: .seconds(2), rssiThreshold: -80) && parsed?.passive == true)
  }
}

/// A central whose scan fails, as a live adapter can (adapter removed, permission lost).
struct FailingCentral: Central {
  struct Gone: Error, CustomStringConvertible { var description: String { "adapter removed" } }
  let name = "hci9"
  func scan(_ parameters: ScanParameters) -> AsyncThrowingStream<AdvertisingReport, any Error> {
    AsyncThrowingStream { $0.finish(throwing: Gone()) }
  }
  func connect(to address: BluetoothAddress, type: AddressType, timeout: Duration) async throws -> any ATTBearer {
    throw LinkError(.unknownDevice)
  }
}

@Suite(.timeLimit(.minutes(5))) struct ScanFailureTests {
  @Test func scanErrorsBecomeOneLineFailures() async throws {
    let command = try ScanCommand.parseAsRoot(["--duration", "1", "--json"]) as! ScanCommand
    let failure = await #expect(throws: CLIFailure.self) {
      _ = try await command.runner(mode: .json).run(central: FailingCentral()) { _ in }
    }
    #expect(failure?.message == "scan on hci9 failed: adapter removed")
  }

  @Test func absurdDurationsAreRejected() {
    #expect(throws: (any Error).self) { try ScanCommand.parseAsRoot(["--duration", "1e300"]) }
    #expect(throws: (any Error).self) { try ScanCommand.parseAsRoot(["--window", "inf"]) }
  }
}
