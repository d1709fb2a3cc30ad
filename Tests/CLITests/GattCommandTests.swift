import ArgumentParser
import BeaconCore
import Testing

@testable import BeaconProvisionCLI
@testable import Simulator

/// The `gatt` commands: argument forms, rendering, and runs against the simulated fleet.
@Suite(.isolatedState, .timeLimit(.minutes(5))) struct GattCommandTests {
  let device = "DD:34:02:06:D1:07"  // demo fleet KBPro_CO2

  @Test func targetsAreUUIDsOrHexHandles() {
    #expect(GATTTarget(argument: "FEA1") == .uuid(BluetoothUUID(0xFEA1)))
    #expect(GATTTarget(argument: "0x000B") == .handle(0x000B))
    #expect(GATTTarget(argument: "0xb") == .handle(0x000B))
    #expect(
      GATTTarget(argument: "8EC90001-F315-4F60-9FB8-838830DAEA50")
        == .uuid(BluetoothUUID("8EC90001-F315-4F60-9FB8-838830DAEA50")!))
    #expect(GATTTarget(argument: "0x0000") == nil)  // handle 0 is never valid (Vol 3 Part F §3.2.2)
    #expect(GATTTarget(argument: "0x10000") == nil)
    #expect(GATTTarget(argument: "hello") == nil)
  }

  @Test func gattAloneRunsTheServicesListing() throws {
    let command = try BeaconProvision.parseAsRoot(["gatt", device, "--adapter", "sim", "--json"])
    let services = try #require(command as? GATTServicesCommand)
    #expect(services.json)
    #expect(services.connection.address == device)
  }

  @Test func argumentsAreCheckedBeforeConnecting() {
    #expect(throws: (any Error).self) { try BeaconProvision.parseAsRoot(["gatt", "read", "not-an-address", "2A00"]) }
    #expect(throws: (any Error).self) { try BeaconProvision.parseAsRoot(["gatt", "write", device, "FEA1", "0G"]) }
    #expect(throws: (any Error).self) {
      try BeaconProvision.parseAsRoot(["gatt", "notify", device, "FEA2", "--count", "0"])
    }
  }

  @Test func listingShowsHandlesPropertiesAndDescriptors() async throws {
    let central = SimulatedCentral(fleet: DemoFleet.fleet, pace: .unpaced)
    let client = GATTClient(
      bearer: try await central.connect(to: BluetoothAddress(device)!, type: .public, timeout: .seconds(1)))
    let text = GATTText.render(try await client.discover())
    await client.close()
    let lines = text.split(separator: "\n").map(String.init)
    #expect(lines.first == "service 1800 Generic Access  handles 0x0001–0x0005")
    #expect(lines.contains("  characteristic FEA1 KBeacon Write  value 0x0019  [write-without-response, write]"))
    #expect(lines.contains("    descriptor 2902 Client Characteristic Configuration  0x001C"))
    #expect(lines.filter { $0.hasPrefix("service ") }.count == 4)
  }

  /// `gatt ADDR` shows secondary services, includes (Core v5.4 Vol 3 Part G §3.1–§3.2) and the decoded
  /// Extended Properties descriptor (§3.3.3.1); `gatt read UUID` finds a characteristic of a secondary service.
  @Test func listingShowsSecondaryServicesIncludesAndExtendedProperties() async throws {
    let server = GATTServer(services: [
      SimulatedService(
        uuid: BluetoothUUID(0x181C), includes: [BluetoothUUID(0xFF10)],
        characteristics: [
          SimulatedCharacteristic(
            uuid: BluetoothUUID(0x2A8A), properties: [.read, .write, .extendedProperties], value: Array("Ada".utf8),
            descriptors: [SimulatedDescriptor(uuid: GATTAttributeType.extendedProperties, value: [0x01, 0x00])])
        ]),
      SimulatedService(
        uuid: BluetoothUUID(0xFF10), isPrimary: false,
        characteristics: [
          SimulatedCharacteristic(uuid: BluetoothUUID(0x2A25), properties: [.read], value: Array("SN-1".utf8))
        ]),
    ])
    let (bearer, _) = try await SimulatedLink.open(to: server, device: BluetoothAddress(device)!, model: .instant)
    let client = GATTClient(bearer: bearer)
    let lines = GATTText.render(try await client.discover()).split(separator: "\n").map(String.init)
    #expect(
      lines == [
        "service 181C User Data  handles 0x0001–0x0005",
        "  include FF10  handles 0x0006–0x0008  at 0x0002",
        "  characteristic 2A8A First Name  value 0x0004  [read, write, extended-properties]",
        "    descriptor 2900 Characteristic Extended Properties  0x0005  [reliable-write]",
        "secondary service FF10  handles 0x0006–0x0008",
        "  characteristic 2A25 Serial Number  value 0x0008  [read]",
      ])
    let target = try #require(GATTTarget(argument: "2A25"))
    let handle = try await target.valueHandle(on: client)
    #expect(try await client.read(handle) == Array("SN-1".utf8))
    await client.close()
  }

  @Test func readLineShowsTextWhenPrintable() {
    #expect(GATTReadCommand.line(Array("KB".utf8)) == "4B 42  \"KB\"")
    #expect(GATTReadCommand.line([0x00, 0xFF]) == "00 FF")
    #expect(GATTReadCommand.line([]) == "(empty)")
  }

  @Test func aRefusedWriteIsOneOperatorLine() async throws {
    let command = try #require(
      try BeaconProvision.parseAsRoot(["gatt", "write", device, "2A00", "01", "--adapter", "sim"]) as? GATTWriteCommand)
    do {
      try await command.run()
      Issue.record("writing the read-only Device Name succeeded")
    } catch let failure as CLIFailure {
      #expect(
        failure.message
          == "cannot write characteristic 2A00: Write Request on handle 0x0003 failed: Write Not Permitted (0x03)")
    }
  }
}
