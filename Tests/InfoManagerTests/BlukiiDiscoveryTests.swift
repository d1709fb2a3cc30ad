import BeaconCore
import Simulator
import Testing

@testable import InfoManager

/// Discovery as the blukii SDK does it, on the simulated fleet's blukii modules (DemoFleet.blukiiModules):
/// one record per module per window, the RSSI threshold, recognition by name.
@Suite(.timeLimit(.minutes(1))) struct BlukiiDiscoveryTests {
  /// The closed windows of an unpaced scan of the demo fleet for `seconds` of simulated time.
  static func windows(_ discovery: BlukiiDiscovery, seconds: Int) async throws -> [DiscoveryWindow] {
    let central = SimulatedCentral(fleet: DemoFleet.fleet, pace: .unpaced)
    let origin = ContinuousClock.now
    var session = DiscoverySession(settings: discovery.sessionSettings, origin: origin)
    var windows: [DiscoveryWindow] = []
    for try await report in central.scan(ScanParameters(active: true)) {
      if report.timestamp - origin >= .seconds(seconds) { break }
      windows += session.ingest(report)
    }
    return windows + session.finish(at: origin + .seconds(seconds))
  }

  @Test func aModuleHeardInSeveralWindowsGivesOneRecordPerWindow() async throws {
    // The SDK's settings: 5 s windows every 20 s; 60 s hold three scan phases.
    let windows = try await Self.windows(.sdkDefault, seconds: 60)
    #expect(windows.map(\.index) == [0, 1, 2])
    #expect(windows.map(\.start) == [0, 20, 40] && windows.map(\.end) == [5, 25, 45])
    for window in windows {
      let modules = BlukiiDiscovery.modules(in: window)
      // One record per module per window; B10003 (−95 dBm) is below the −85 dBm threshold.
      #expect(modules.map(\.id) == ["B10001", "B10002", "B10004"])
      #expect(Set(window.devices.map(\.address)).count == window.devices.count)
      // Each window's record was first heard inside that window's scan phase.
      for record in window.devices { #expect(record.firstSeen >= window.start && record.lastSeen < window.end) }
      // The first frame of each kind wins: one iBeacon frame per record, however many adverts came.
      let b1 = try #require(window.devices.first { $0.address == BluetoothAddress("E4:E1:12:B1:00:01")! })
      #expect(b1.frames.map(\.kind) == [.iBeacon] && b1.advertisingReports > 1)
    }
  }

  @Test func aModuleBelowTheThresholdIsNotReported() async throws {
    let strict = try await Self.windows(.sdkDefault, seconds: 5)
    #expect(!strict.flatMap(\.devices).contains { $0.name?.hasPrefix("blukii B10003") == true })
    // With the SDK's lowest threshold (−120 dBm) it is heard.
    var open = BlukiiDiscovery.sdkDefault
    open.rssiThreshold = -120
    let all = try await Self.windows(open, seconds: 5)
    #expect(all.flatMap { BlukiiDiscovery.modules(in: $0) }.map(\.id) == ["B10001", "B10002", "B10003", "B10004"])
  }

  @Test func modulesAreRecognisedByName() {
    #expect(BlukiiModule.id(fromName: "blukii B12345 E4E1129B0B88") == "B12345")
    #expect(BlukiiModule.id(fromName: "Blukii  BTS1.0 xyz") == "BTS1.0")
    #expect(BlukiiModule.id(fromName: "blukii") == nil)
    #expect(BlukiiModule.id(fromName: "KBPro_214810") == nil)
    #expect(BlukiiModule.id(fromName: "blukiiX B1") == nil)
    // A product name is not an ID: the second word must have the ID form (a digit, ASCII, short).
    #expect(BlukiiModule.id(fromName: "Blukii Smart Key") == nil)
    #expect(BlukiiModule.id(fromName: "blukii SmartKey 2") == nil)
    #expect(BlukiiModule.id(fromName: "blukii B1234\u{1b}[2J") == nil)
    #expect(BlukiiModule.id(fromName: "blukii B123456789012345678901") == nil)
  }
}
