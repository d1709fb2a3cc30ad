import BeaconCore
import KBeacon
import Testing

@testable import Simulator

/// `SimulatedCentral.withKBeacons` advertises each KBeacon from its current configuration: a `cfg` written
/// over the simulated GATT link shows in the next scan, and saved state shows from the first scan.
@Suite(.timeLimit(.minutes(3))) struct KBeaconAdvertisingCentralTests {
  static let target = BluetoothAddress("DD:34:02:06:D1:04")!
  static let neighbour = BluetoothAddress("DD:34:02:06:D1:02")!

  /// The decoded frames and names each device sent in 3 s of simulated time.
  static func scan(_ central: SimulatedCentral) async throws -> [BluetoothAddress: (
    frames: [BeaconFrame], names: Set<String>
  )] {
    var heard: [BluetoothAddress: (frames: [BeaconFrame], names: Set<String>)] = [:]
    var first: ContinuousClock.Instant?
    for try await report in central.scan(ScanParameters(active: true)) {
      first = first ?? report.timestamp
      if report.timestamp - first! > .seconds(3) { break }
      let decoded = DecodedAdvertisement(report.data)
      heard[report.address, default: ([], [])].frames += decoded.frames
      if let name = decoded.localName { heard[report.address, default: ([], [])].names.insert(name) }
    }
    return heard
  }

  static func iBeacons(_ frames: [BeaconFrame]) -> Set<String> {
    Set(
      frames.compactMap {
        if case .iBeacon(let b) = $0 { "\(b.uuid) \(b.major)/\(b.minor) \(b.measuredPower)" } else { nil }
      })
  }

  /// Slot 0 → iBeacon 0xBEEF/0x0007 at −65 dBm, named "dock-4", over the device's GATT service.
  static func configure(_ central: SimulatedCentral) async throws {
    let bearer = try await central.connect(to: target, type: .public, timeout: .seconds(1))
    let link = try await GATTKBeaconLink.open(GATTClient(bearer: bearer))
    let session = KBeaconSession(
      link: link, environment: .init(randomBytes: { [UInt8](repeating: 7, count: $0) }, now: { 1_700_000_000 }),
      timeouts: .all(.seconds(5)))
    try await session.authenticate(password: .factoryDefault)
    var slot = SlotConfig(slot: 0, type: .iBeacon)
    slot[SlotKey.majorID] = 0xBEEF
    slot[SlotKey.minorID] = 7
    var changes = KBeaconConfiguration(slots: [slot])
    changes.common[CommonKey.name] = "dock-4"
    changes.common[CommonKey.meaPwr] = -65
    try await session.write(changes)
    await session.close()
  }

  @Test func aScanStartedAfterAWriteShowsTheNewConfiguration() async throws {
    let (central, kbeacons) = SimulatedCentral.withKBeacons(fleet: DemoFleet.fleet, pace: .unpaced)
    let before = try await Self.scan(central)
    #expect(Self.iBeacons(before[Self.target]?.frames ?? []) == ["\(DemoFleet.kkmUUID) 100/4 -59"])
    #expect(before[Self.target]?.names == ["KBPro_214814"])

    try await Self.configure(central)
    let after = try await Self.scan(central)
    #expect(Self.iBeacons(after[Self.target]?.frames ?? []) == ["\(DemoFleet.kkmUUID) 48879/7 -65"])
    #expect(after[Self.target]?.names == ["dock-4"])
    #expect(Self.iBeacons(after[Self.neighbour]?.frames ?? []) == ["\(DemoFleet.kkmUUID) 100/2 -59"])

    // What a restart restores (the state store's snapshot) is advertised by a fresh central from its first scan.
    let saved = await kbeacons.snapshots()
    let (restarted, _) = SimulatedCentral.withKBeacons(fleet: DemoFleet.fleet, pace: .unpaced, restored: saved)
    let again = try await Self.scan(restarted)
    #expect(Self.iBeacons(again[Self.target]?.frames ?? []) == ["\(DemoFleet.kkmUUID) 48879/7 -65"])
    #expect(again[Self.target]?.names == ["dock-4"])
  }

  @Test func aCentralWithoutKBeaconsStillAdvertisesTheFleetEntries() async throws {
    let heard = try await Self.scan(SimulatedCentral(fleet: DemoFleet.fleet, pace: .unpaced))
    #expect(Self.iBeacons(heard[Self.target]?.frames ?? []) == ["\(DemoFleet.kkmUUID) 100/4 -59"])
    #expect(Set(heard.keys) == Set(DemoFleet.fleet.devices.map(\.address)))
  }
}
