import BeaconCore
import BlueZ
import Testing

@testable import Simulator

/// `SimulatedCentral.connect`: fleet devices reached over a real socketpair through the same bearer and
/// GATT client as live links.
@Suite(.timeLimit(.minutes(3))) struct SimulatedCentralConnectTests {
  let kbeacon = BluetoothAddress("DD:34:02:06:D1:07")!  // demo fleet KBPro_CO2
  let iBeacon = BluetoothAddress("AC:23:3F:00:00:05")!  // demo fleet plain iBeacon n=5 (connectable: n <= 3)

  @Test func connectsToAFleetDeviceAndDiscoversItsDatabase() async throws {
    let central = SimulatedCentral(fleet: DemoFleet.fleet, pace: .unpaced)
    let bearer = try await central.connect(to: kbeacon, type: .public, timeout: .seconds(5))
    #expect(bearer is FileDescriptorBearer)
    #expect(bearer.peer == kbeacon)
    let client = GATTClient(bearer: bearer)
    let db = try await client.discover()
    #expect(db.services.map(\.uuid) == [0x1800, 0x1801, 0x180A, 0xFEA0].map { BluetoothUUID($0) })
    let name = try #require(db.characteristic(GenericDeviceDatabase.deviceName))
    #expect(try await client.read(name.valueHandle) == Array("KBPro_CO2".utf8))
    #expect(db.characteristic(BluetoothUUID(0xFEA1))?.properties == [.write, .writeWithoutResponse])
    #expect(db.characteristic(BluetoothUUID(0xFEA2))?.cccdHandle != nil)
    #expect(db.characteristic(BluetoothUUID(0xFEA3))?.properties == [.indicate])
    await client.close()
  }

  @Test func aDeviceKeepsItsServerAcrossReconnects() async throws {
    let central = SimulatedCentral(fleet: DemoFleet.fleet, pace: .unpaced)
    let first = GATTClient(bearer: try await central.connect(to: kbeacon, type: .public, timeout: .seconds(5)))
    let fea1 = try await first.characteristic(BluetoothUUID(0xFEA1))
    try await first.write([0xAB, 0xCD], to: fea1.valueHandle)
    await first.close()
    let server = await central.gattLinks.server(for: kbeacon) { _ in GATTServer(services: []) }
    #expect(await server.storedValue(fea1.valueHandle) == [0xAB, 0xCD])
  }

  /// A link is to an address and its type (Core v5.4 Vol 6 Part B §1.3): a device on a random address is
  /// reached as random only; as public the connect times out, as the kernel's does.
  @Test func reachesADeviceOnlyWithItsAddressType() async throws {
    let address = BluetoothAddress("DD:34:02:06:AA:01")!
    let device = SimulatedDevice(address: address, addressType: .random, kind: .kbeaconPro, name: "random")
    let central = SimulatedCentral(fleet: SimulatedFleet(devices: [device]), pace: .unpaced)
    do {
      _ = try await central.connect(to: address, type: .public, timeout: .seconds(1))
      Issue.record("a random-address device was reached as public")
    } catch let error as LinkError {
      #expect(error.code == .connectTimeout)
    }
    let bearer = try await central.connect(to: address, type: .random, timeout: .seconds(1))
    await bearer.close()
  }

  @Test func refusesUnknownAndNonConnectableDevices() async throws {
    let central = SimulatedCentral(fleet: DemoFleet.fleet, pace: .unpaced)
    await #expect(throws: LinkError.self) {
      _ = try await central.connect(to: BluetoothAddress("00:11:22:33:44:55")!, type: .public, timeout: .seconds(1))
    }
    do {
      _ = try await central.connect(to: iBeacon, type: .public, timeout: .seconds(1))
      Issue.record("connected to a non-connectable iBeacon")
    } catch let error as LinkError {
      #expect(error.code == .notConnectable)
    }
  }

  @Test func capsLinksPerSimulatedAdapter() async throws {
    let central = SimulatedCentral(
      fleet: DemoFleet.fleet, pace: .unpaced, gattLinks: SimulatedGATTLinks(model: .instant, maxLinks: 2))
    let a = try await central.connect(to: kbeacon, type: .public, timeout: .seconds(1))
    let b = try await central.connect(to: kbeacon, type: .public, timeout: .seconds(1))
    do {
      _ = try await central.connect(to: kbeacon, type: .public, timeout: .seconds(1))
      Issue.record("a third link opened")
    } catch let error as LinkError {
      #expect(error.code == .tooManyLinks)
    }
    await a.close()
    await b.close()
  }
}
