import BeaconCore
import Simulator

/// `provision-bench gatt-round-trips`: ATT round trips (requests sent) per GATT procedure against the
/// simulated server, next to the fewest the GATT procedures allow (Core v5.4 Vol 3 Part G §4) for the same
/// database and MTU. Wall time at the default link model (one connection interval per round trip) is shown
/// for the full discovery. Figures are printed, never asserted.
enum GATTRoundTrips {
  static func run() async throws {
    let services = GenericDeviceDatabase.kbeaconLike(name: "KBPro_123456")
    print(
      "database: KBeacon-like (GAP, GATT, Device Information, FEA0) — \(GATTAttributeTable(services: services).attributes.count) attributes"
    )
    print("procedure".padding(toLength: 46, withPad: " ", startingAt: 0) + "MTU   ours  minimum")
    for mtu in [23, 247] {
      let server = GATTServer(services: services)
      let (bearer, _) = try await SimulatedLink.open(
        to: server, device: BluetoothAddress(rawValue: 0xC4_00_00_00_00_01),
        model: LinkModel(roundTripLatency: .zero, maxMTU: mtu))
      let client = GATTClient(bearer: bearer)
      func row(_ name: String, _ minimum: Int, _ body: () async throws -> Void) async throws {
        let before = await client.roundTrips
        try await body()
        let used = await client.roundTrips - before
        print(
          name.padding(toLength: 46, withPad: " ", startingAt: 0)
            + "\(mtu)".padding(toLength: 6, withPad: " ", startingAt: 0)
            + "\(used)".padding(toLength: 6, withPad: " ", startingAt: 0) + "\(minimum)")
      }
      if mtu > 23 { try await row("exchange MTU", 1) { _ = try await client.exchangeMTU() } }
      let least = DiscoveryCost(table: server.table, mtu: mtu)
      try await row("discover primary services", least.services) { _ = try await client.discoverPrimaryServices() }
      try await row("discover everything (services+chars+descs)", least.total) { _ = try await client.discover() }
      let fea0 = DiscoveryCost(table: server.table, mtu: mtu, only: BluetoothUUID(0xFEA0))
      try await row("discover FEA0 by UUID + chars + descs", fea0.total) {
        guard var s = try await client.discoverPrimaryServices(BluetoothUUID(0xFEA0)).first else { return }
        s.characteristics = try await client.discoverCharacteristics(of: s)
        for c in s.characteristics { _ = try await client.discoverDescriptors(of: c) }
      }
      let name = try await client.characteristic(GenericDeviceDatabase.deviceName)
      try await row("read device name", 1) { _ = try await client.read(name.valueHandle) }
      let write = try await client.characteristic(BluetoothUUID(0xFEA1))
      let long = [UInt8](repeating: 0x5A, count: 500)
      try await row("write 500 octets (prepare + execute)", (500 + mtu - 6) / (mtu - 5) + 1) {
        try await client.writeLong(long, to: write.valueHandle)
      }
      await client.close()
    }
    try await timedDiscovery(services)
  }

  /// Full discovery at the default link model, timed.
  static func timedDiscovery(_ services: [SimulatedService]) async throws {
    let model = LinkModel()
    let (bearer, _) = try await SimulatedLink.open(
      to: GATTServer(services: services), device: BluetoothAddress(rawValue: 0xC4_00_00_00_00_02), model: model)
    let client = GATTClient(bearer: bearer)
    let clock = ContinuousClock()
    let start = clock.now
    _ = try await client.exchangeMTU()
    _ = try await client.discover()
    let elapsed = clock.now - start
    let trips = await client.roundTrips
    print("connect-to-discovered at \(model.roundTripLatency) per round trip: \(trips) round trips in \(elapsed)")
    await client.close()
  }
}

/// The fewest requests GATT discovery can take for a table at an MTU (Part G §4.4.1, §4.6.1, §4.7.1): each
/// response packs as many same-size entries as fit; service discovery needs one more request to hear
/// Attribute Not Found unless the last service ends at 0xFFFF; characteristic discovery needs one only
/// while the service has room for another declaration; descriptor discovery ends with its range.
struct DiscoveryCost {
  var services = 0
  /// Full discovery also asks for secondary services (Read By Group Type 0x2801): one request that hears
  /// Attribute Not Found in a table without any. (These tables have no includes, which cost nothing then.)
  var secondaryServices = 0
  var characteristics = 0
  var descriptors = 0
  var total: Int { services + secondaryServices + characteristics + descriptors }

  init(table: GATTAttributeTable, mtu: Int, only: BluetoothUUID? = nil) {
    var serviceSizes: [Int] = []
    for a in table.attributes {
      guard case .service(let service, let end) = a.role, only == nil || service.uuid == only else { continue }
      serviceSizes.append(service.uuid.attBytes.count)
      let inside = Array(table.attributes(in: a.handle + 1, end))
      let declarations = inside.compactMap { item -> (Int, UInt16)? in
        guard case .declaration(let c, let valueHandle) = item.role else { return nil }
        return (3 + c.uuid.attBytes.count, valueHandle)
      }
      characteristics += Self.packets(declarations.map(\.0), perEntry: 2, mtu: mtu)
      let lastValue = declarations.last.map { Int($0.1) } ?? Int(a.handle)
      if lastValue + 2 <= Int(end) { characteristics += 1 }
      // Descriptors: the attributes after each value up to the next declaration.
      var run: [Int] = []
      for item in inside {
        switch item.role {
        case .declaration, .value:
          descriptors += Self.packets(run, perEntry: 2, mtu: mtu)
          run = []
        default: run.append(item.type.attBytes.count)
        }
      }
      descriptors += Self.packets(run, perEntry: 2, mtu: mtu)
    }
    services = only == nil ? Self.packets(serviceSizes, perEntry: 4, mtu: mtu) : 1
    services += 1  // the final Attribute Not Found (no service ends at 0xFFFF here)
    secondaryServices = only == nil ? 1 : 0
  }

  /// Response PDUs for entries of the given value sizes, each with `perEntry` fixed octets, two octets of
  /// PDU header, a new PDU whenever the size changes or the MTU is full.
  static func packets(_ sizes: [Int], perEntry: Int, mtu: Int) -> Int {
    var count = 0
    var room = 0
    var size = -1
    for s in sizes {
      if s != size || room < perEntry + s {
        count += 1
        room = mtu - 2
        size = s
      }
      room -= perEntry + s
    }
    return count
  }
}
