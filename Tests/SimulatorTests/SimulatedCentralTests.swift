import BeaconCore
import Testing

@testable import Simulator

/// The simulated radio: raw AD bytes from the fleet, intervals, scan responses, live TLM counters,
/// deterministic RSSI.
@Suite(.timeLimit(.minutes(3))) struct SimulatedCentralTests {
  /// Reports of an unpaced scan for `seconds` of simulated time.
  static func scan(_ fleet: SimulatedFleet = DemoFleet.fleet, active: Bool = true, seconds: Int = 3) async throws
    -> [AdvertisingReport]
  {
    let central = SimulatedCentral(fleet: fleet, pace: .unpaced)
    let before = ContinuousClock.now
    var reports: [AdvertisingReport] = []
    for try await report in central.scan(ScanParameters(active: active)) {
      if report.timestamp - before > .seconds(seconds) { break }
      reports.append(report)
    }
    return reports
  }

  @Test func everyDemoDeviceIsHeardAndDecodes() async throws {
    let reports = try await Self.scan()
    #expect(Set(reports.map(\.address)) == Set(DemoFleet.fleet.devices.map(\.address)))
    for report in reports {
      let decoded = DecodedAdvertisement(report.data)
      // A text-stream device's advertising PDU names its service; its scan response its name.
      #expect(
        !decoded.frames.isEmpty || decoded.localName != nil || !decoded.serviceUUIDs128.isEmpty,
        "\(report.address) \(Hex.encode(report.data))")
      #expect(!decoded.frames.contains { $0.isMalformed }, "\(Hex.encode(report.data))")
      #expect(report.data.count <= 31, "legacy PDUs carry at most 31 bytes: \(Hex.encode(report.data))")
    }
    // Timestamps never go backwards.
    #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp })
  }

  @Test func theK6ReplaysTheRealSampleBytes() async throws {
    let k6 = BluetoothAddress("DD:34:02:06:D0:6C")!
    let reports = try await Self.scan().filter { $0.address == k6 }
    // 02 01 06 | 03 03 AA FE | 12 16 AA FE 21 01 0F 0E07 192A 224F FFFC FFEC 03EB
    #expect(
      reports.contains { Hex.encode($0.data) == "020106" + "0303AAFE" + "1216AAFE21010F0E07192A224FFFFCFFEC03EB" })
    // 0D 09 "KBPro_214810" | 09 16 80 20 6D 01 00 00 00 00
    #expect(
      reports.contains {
        $0.kind == .scanResponse && Hex.encode($0.data) == "0D094B4250726F5F323134383130091680206D0100000000"
      })
  }

  @Test func scanResponsesOnlyWhenActiveAndScannable() async throws {
    let passive = try await Self.scan(active: false)
    #expect(!passive.isEmpty && !passive.contains { $0.kind == .scanResponse })
    let active = try await Self.scan()
    let responders = Set(active.filter { $0.kind == .scanResponse }.map(\.address))
    #expect(responders.contains(BluetoothAddress("AC:23:3F:00:00:01")!))  // connectable, named
    #expect(!responders.contains(BluetoothAddress("AC:23:3F:00:00:04")!))  // non-connectable, no name
    #expect(
      active.filter { $0.address == BluetoothAddress("AC:23:3F:00:00:04")! }.allSatisfy { $0.kind == .nonConnectable })
  }

  @Test func devicesAdvertiseAtTheirInterval() async throws {
    let address = BluetoothAddress("E1:DD:57:00:00:07")!  // 1000 ms
    let times = try await Self.scan(seconds: 10).filter { $0.address == address && $0.kind != .scanResponse }.map(
      \.timestamp)
    #expect((9...10).contains(times.count))
    for (a, b) in zip(times, times.dropFirst()) {
      #expect(b - a >= .milliseconds(1000) && b - a <= .milliseconds(1010), "advDelay is 0–10 ms")
    }
  }

  @Test func tlmCountersAreLive() async throws {
    let address = BluetoothAddress("E1:DD:57:00:00:05")!  // UID + TLM, 300 ms, uptime 86400 s at start
    let tlms: [EddystoneTLMFrame] = try await Self.scan(seconds: 5).filter { $0.address == address }.compactMap {
      if case .eddystoneTLM(let f)? = DecodedAdvertisement($0.data).frames.first { return f }
      return nil
    }
    #expect(tlms.count >= 7)
    for (a, b) in zip(tlms, tlms.dropFirst()) {
      #expect(b.advertisingCount == a.advertisingCount + 2, "UID and TLM alternate")
      #expect(b.uptimeTenths > a.uptimeTenths && b.uptimeTenths - a.uptimeTenths <= 7)
    }
    #expect(tlms.first.map { $0.uptimeTenths >= 864_000 } == true)
    #expect(tlms.first?.temperature == 23.25 && tlms.first?.batteryMillivolts == 2987)
  }

  @Test func rssiIsADeterministicWalkWithinTheSpread() async throws {
    let first = try await Self.scan().map { [$0.address.description, "\($0.rssi)", Hex.encode($0.data)] }
    let second = try await Self.scan().map { [$0.address.description, "\($0.rssi)", Hex.encode($0.data)] }
    #expect(first == second)
    for device in DemoFleet.fleet.devices {
      let values = try await Self.scan(seconds: 5).filter { $0.address == device.address }.map { Int($0.rssi) }
      #expect(values.allSatisfy { abs($0 - device.rssi.mean) <= device.rssi.spread }, "\(device.address)")
      if values.count > 8 && device.rssi.spread > 0 { #expect(Set(values).count > 1, "\(device.address) never varies") }
    }
    // A different seed gives a different walk.
    var walkA = RSSIRandomWalk(profile: RSSIProfile(mean: -60, spread: 10, seed: 1), defaultSeed: 0)
    var walkB = RSSIRandomWalk(profile: RSSIProfile(mean: -60, spread: 10, seed: 2), defaultSeed: 0)
    #expect((0..<50).map { _ in walkA.next() } != (0..<50).map { _ in walkB.next() })
  }

  @Test func paceMapsSimulatedTimeToTheWallClock() {
    #expect(SimulationPace.realTime.wallClockOffset(.seconds(3)) == .seconds(3))
    #expect(SimulationPace.realTime(speed: 4).wallClockOffset(.seconds(2)) == .milliseconds(500))
    #expect(SimulationPace.unpaced.wallClockOffset(.seconds(2)) == nil)
  }
}
