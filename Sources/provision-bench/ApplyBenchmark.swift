import BeaconCore
import Fleet
import Foundation
import JSON
import KBeacon
import Profiles
import Simulator
import Synchronization

/// `provision-bench apply`: the profile engine against simulated KBeacon Pros over a link model of 30 ms
/// per ATT round trip — devices per minute with 1 and 4 links, the speed-up, and the ATT requests each
/// device costs next to the minimum the protocols allow, on a first run (MTU exchange, the table's
/// discovery at the fewest requests GATT allows, `DiscoveryCost`, the FEA2 CCCD write) and on a second run
/// with the first run's GATT cache (MTU exchange, the Database Hash read, the CCCD write). Goals (printed,
/// not asserted): requests ≤ 1.25 × the minimum, 1.00 × on the second run; speed-up ≥ 0.8 × links.
enum ApplyBenchmark {
  static let devices = 24
  static let latency = Duration.milliseconds(30)

  /// The fewest KBeacon frames (Write Commands, each answered by a notification, so one round trip each):
  /// authentication 2 (docs/protocols/kbeacon.md §5); a `cfg` of this size, 1; and twice (read, verify) a `getPara` for the sections
  /// the profile manages: its request frame plus one report ack per report fragment (§4.4), the fragments
  /// being the answer's JSON size over the frame budget (MTU 247 − 6).
  static func minimumFrames(answerBytes: Int) -> Int {
    let fragments = (answerBytes + 240) / 241
    return 2 + 1 + 2 * (1 + fragments)
  }

  /// `count` KBeacon Pros (firmware 5.22, System frame in slot 0) from `firstAddress` on.
  static func fleet(count: Int, firstAddress: UInt64) -> SimulatedFleet {
    SimulatedFleet(
      devices: (0..<count).map { i in
        SimulatedDevice(
          address: BluetoothAddress(rawValue: firstAddress + UInt64(i)), kind: .kbeaconPro, name: "KBPro_B\(i)",
          intervalMs: 1000, system: SystemSection(model: 12, batteryPercent: 90, firmware: "5.22"))
      })
  }

  /// The benchmarks' profile: a templated name and slot 0 turned into an iBeacon.
  static func profile() throws -> LoadedProfile {
    let text =
      #"{"version": 1, "desired": {"name": "bench-{{address_hex}}", "slots": [{"slot": 0, "type": "ibeacon", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 7, "minor": 9, "intervalMs": 760}]}}"#
    return try LoadedProfile.load(file: "bench.json", read: { _ in Array(text.utf8) }, urlCheck: { _ in nil })
  }

  static func run() async throws {
    let fleet = fleet(count: devices, firstAddress: 0xDD34_0206_F000)
    let profile = try profile()
    print("devices: \(devices) KBeacon Pro, link model: \(latency) per ATT round trip, MTU 247")
    // The getPara answer for common + slots, as the simulated device holds it (§6.1).
    let probe = KBeaconSimulation(fleet: fleet, now: { 0 })
    let kbeacon = probe.kbeacon(fleet.devices[0].address)!
    let config = await kbeacon.configuration
    let answer = KBeaconConfiguration(generation: .pro, common: config.common, slots: config.slots)
    let answerBytes = JSONWriter.bytes(.object(answer.deviceJSON)).count
    // MTU exchange, discovery of the simulated KBeacon's whole table at MTU 247, the FEA2 CCCD write.
    let discovery = DiscoveryCost(table: kbeacon.makeServer().table, mtu: 247).total
    let minimumRequests = 1 + discovery + 1
    // With a valid GATT cache entry the discovery is one Database Hash read (Read By Type 0x2B2A).
    let cachedRequests = 1 + 1 + 1
    let frames = minimumFrames(answerBytes: answerBytes)
    print(
      "a common+slots getPara answer is \(answerBytes) bytes; discovering the table takes at least \(discovery) requests"
    )
    var perMinute: [Int: Double] = [:]
    for links in [1, 4] {
      // The same cache for both runs; the second run meets devices in their factory state again (a fresh
      // simulation of the same fleet: the same tables, so the same Database Hashes), so it does the same work.
      let cache = GATTCacheMemory()
      for (visit, least) in [("first run (empty cache)", minimumRequests), ("second run (cached)", cachedRequests)] {
        let result = try await once(fleet: fleet, profile: profile, links: links, cache: cache)
        if visit.hasPrefix("first") { perMinute[links] = result.perMinute }
        let total = result.requests + result.commands
        print(
          String(
            format: "%d link%@, %@: %d/%d updated = %.0f devices/min", links, links == 1 ? "" : "s", visit,
            result.updated, devices, result.perMinute))
        print(
          String(
            format:
              "  per device: %.1f ATT requests (minimum %d) + %.1f KBeacon frames (minimum %d) = %.1f round trips, minimum %d: ratio %.2f (goal ≤ 1.25; cached 1.00)",
            result.requests, least, result.commands, frames, total, least + frames, total / Double(least + frames)))
      }
    }
    if let one = perMinute[1], let four = perMinute[4], one > 0 {
      print(
        String(
          format: "speed-up 1 → 4 links (first runs): %.2f× (%.2f × links; goal ≥ 0.80 × links)", four / one,
          four / one / 4))
    }
  }

  /// One apply of `profile` to a fresh simulation of `fleet`: devices verified, per minute, and ATT requests
  /// and Write Commands per verified device.
  static func once(fleet: SimulatedFleet, profile: LoadedProfile, links: Int, cache: any GATTCacheStore) async throws
    -> (updated: Int, perMinute: Double, requests: Double, commands: Double)
  {
    let (central, _) = SimulatedCentral.withKBeacons(
      fleet: fleet, pace: .realTime, linkModel: LinkModel(roundTripLatency: latency))
    let counting = CountingCentral(central)
    let targets = fleet.devices.map { Target(address: $0.address) }
    let campaign = ApplyCampaign(
      profile: profile, targets: targets, opener: KBeaconOpener(central: counting, gattCache: cache),
      journal: try Journal(path: nil),
      run: "bench", options: .init(parallel: links, retry: RetryPolicy(maximumAttempts: 1)),
      passwords: .init(current: Secret("0000000000000000")), resolver: DesiredResolver(urlCheck: { _ in nil }))
    let start = ContinuousClock.now
    let summary = await campaign.start()
    let seconds = (ContinuousClock.now - start) / .seconds(1)
    let updated = summary.count(.verified)
    if let failure = summary.outcomes.values.first(where: { $0.state == .failed }) {
      print("  first failure: \(failure)")
    }
    let n = Double(max(updated, 1))
    return (
      updated, Double(updated) / seconds * 60, Double(counting.requests.withLock { $0 }) / n,
      Double(counting.commands.withLock { $0 }) / n
    )
  }
}

/// Counts the ATT requests (PDUs that wait for a response) and commands every bearer it hands out sends.
final class CountingCentral: Central {
  let inner: any Central
  let requests = Mutex(0)
  let commands = Mutex(0)
  init(_ inner: any Central) { self.inner = inner }
  var name: String { inner.name }
  func scan(_ parameters: ScanParameters) -> AsyncThrowingStream<AdvertisingReport, any Error> {
    inner.scan(parameters)
  }
  func connect(to address: BluetoothAddress, type: AddressType, timeout: Duration) async throws -> any ATTBearer {
    CountingBearer(try await inner.connect(to: address, type: type, timeout: timeout), self)
  }
}

final class CountingBearer: ATTBearer {
  let inner: any ATTBearer
  let counter: CountingCentral
  init(_ inner: any ATTBearer, _ counter: CountingCentral) {
    self.inner = inner
    self.counter = counter
  }
  var peer: BluetoothAddress { inner.peer }
  var incoming: AsyncThrowingStream<[UInt8], any Error> { inner.incoming }
  func send(_ pdu: [UInt8]) async throws {
    if let op = pdu.first {
      // Write Command 0x52 and confirmations 0x1E expect no response; every other client PDU is a request.
      if op == 0x52 {
        counter.commands.withLock { $0 += 1 }
      } else if op != 0x1E {
        counter.requests.withLock { $0 += 1 }
      }
    }
    try await inner.send(pdu)
  }
  func close() async { await inner.close() }
}
