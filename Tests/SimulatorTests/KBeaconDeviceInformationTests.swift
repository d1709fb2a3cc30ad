import BeaconCore
import KBeacon
import Testing

@testable import Simulator

/// A simulated KBeacon's Device Information service (0x180A, docs/protocols/kbeacon.md §2) read over GATT: it
/// says what the device's configuration says (model, `ver`, `hver`), follows a DFU, and carries the System
/// ID (0x2A23) from which KKM's iOS SDK recovers the MAC.
@Suite("KBeacon Device Information", .timeLimit(.minutes(1))) struct KBeaconDeviceInformationTests {
  static let address = BluetoothAddress("DD:34:02:06:D0:6C")!

  /// Reads every Device Information characteristic of `device` over a fresh link.
  func read(_ device: SimulatedKBeacon) async throws -> [BluetoothUUID: [UInt8]] {
    let (bearer, link) = try await SimulatedLink.open(
      to: device.makeServer(), device: device.address, model: LinkModel(roundTripLatency: .zero))
    let client = GATTClient(bearer: bearer, transactionTimeout: .seconds(5))
    var values: [BluetoothUUID: [UInt8]] = [:]
    for uuid in [0x2A29, 0x2A24, 0x2A23, 0x2A26, 0x2A27].map({ BluetoothUUID(UInt16($0)) }) {
      let characteristic = try await client.characteristic(uuid, inService: BluetoothUUID(0x180A))
      values[uuid] = try await client.read(characteristic.valueHandle)
    }
    await client.close()
    await link.disconnect()
    return values
  }

  func text(_ values: [BluetoothUUID: [UInt8]], _ uuid: UInt16) -> String? {
    values[BluetoothUUID(uuid)].map { String(decoding: $0, as: UTF8.self) }
  }

  @Test func proDeviceReportsItsConfigurationAndFollowsADFU() async throws {
    // The KBeacon Pro profile's common config: model "KBPro_SIM", ver "V5.22", hver "V1.0".
    let device = SimulatedKBeacon(address: Self.address, profile: .pro(), now: { 0 })
    var values = try await read(device)
    #expect(text(values, 0x2A29) == "KKM")
    #expect(text(values, 0x2A24) == "KBPro_SIM")
    #expect(text(values, 0x2A26) == "V5.22")
    #expect(text(values, 0x2A27) == "V1.0")
    // DD:34:02:06:D0:6C least significant byte first is 6C D0 06 02 34 DD: bytes 0–2 are 6C D0 06,
    // then FE FF, then 02 34 DD.
    #expect(values[BluetoothUUID(0x2A23)] == [0x6C, 0xD0, 0x06, 0xFE, 0xFF, 0x02, 0x34, 0xDD])

    await device.installFirmware(version: "V5.30")
    values = try await read(device)
    #expect(text(values, 0x2A26) == "V5.30")
  }

  /// KKM's iOS SDK (I2 `systemHandleResponse`, §2): of an 8-byte System ID it keeps bytes 0–2 and 5–7 and
  /// prints them most significant first — that must give the device's address back.
  @Test func theIOSRuleRecoversTheAddressFromTheSystemID() async throws {
    let device = SimulatedKBeacon(address: Self.address, profile: .pro(), now: { 0 })
    let id = try #require(try await read(device)[BluetoothUUID(0x2A23)])
    try #require(id.count == 8)
    let mac = [id[7], id[6], id[5], id[2], id[1], id[0]]
    #expect(BluetoothAddress(bytes: mac) == Self.address)
  }

  @Test func legacyDeviceReportsItsModleKey() async throws {
    // The legacy profile's flat config: "modle" "KBN52_SIM", ver "V3.12", hver "V1.0".
    let device = SimulatedKBeacon(address: Self.address, profile: .legacy(), now: { 0 })
    let values = try await read(device)
    #expect(text(values, 0x2A24) == "KBN52_SIM")
    #expect(text(values, 0x2A26) == "V3.12")
    #expect(text(values, 0x2A27) == "V1.0")
  }
}
