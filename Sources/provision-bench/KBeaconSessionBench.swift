import BeaconCore
import KBeacon
import Simulator

/// `provision-bench kbeacon-session`: a full KBeacon visit against the simulated KBeacon over the simulated
/// GATT link at the default link model (one connection interval per ATT round trip): connect sequence +
/// auth + full read (docs/protocols/kbeacon.md §3), a one-slot write (§6.2), and 100 history records (§9), at
/// MTU 23 and 247. Frames and wall time are printed; the goal (a configuration visit under 2 s at MTU 247
/// with 15 ms round trips) is printed next to them, never asserted.
enum KBeaconSessionBench {
  static func run() async throws {
    let environment = KBeaconSession.Environment(
      randomBytes: { [UInt8](repeating: 7, count: $0) }, now: { 1_700_000_000 })
    let clock = ContinuousClock()
    print("MTU  connect+auth+read  write  history(100)  ATT round trips")
    for mtu in [23, 247] {
      let address = BluetoothAddress(rawValue: 0xBC57_2900_0000 + UInt64(mtu))
      let records = (0..<100).map {
        SensorRecord(utc: 1_699_990_000 + UInt32($0) * 60, reading: .humidity(celsius: 21, percent: 40))
      }
      let device = SimulatedKBeacon(address: address, profile: .pro(), humidityHistory: records, now: { 1_700_000_000 })
      let (bearer, link) = try await SimulatedLink.open(
        to: device.makeServer(), device: address, model: LinkModel(maxMTU: mtu))
      await device.attach(link)
      let client = GATTClient(bearer: bearer)
      let start = clock.now
      let (session, _) = try await KBeaconSession.connect(
        client: client, password: .factoryDefault, environment: environment, readSections: .all)
      let connected = clock.now
      var slot = SlotConfig(slot: 0, type: .iBeacon)
      slot[SlotKey.majorID] = 77
      try await session.write(KBeaconConfiguration(slots: [slot]))
      let written = clock.now
      let history = try await session.readHistory(sensor: .humidity, order: .forward)
      let done = clock.now
      precondition(history.count == 100)
      let requests = await client.roundTrips
      let commands = await client.commandsSent
      print(
        "\(mtu)".padding(toLength: 5, withPad: " ", startingAt: 0)
          + ms(connected - start).padding(toLength: 19, withPad: " ", startingAt: 0)
          + ms(written - connected).padding(toLength: 7, withPad: " ", startingAt: 0)
          + ms(done - written).padding(toLength: 14, withPad: " ", startingAt: 0)
          + "\(requests) + \(commands) write commands")
      await session.close()
    }
    print("goal: connect+auth+read under 2 s at MTU 247 with 15 ms round trips")
  }

  static func ms(_ d: Duration) -> String {
    let value = Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    return "\(Int(value.rounded())) ms"
  }
}
