import BeaconCore
import KBeacon
import NordicDFU

/// The GATT database of a simulated KBeacon (docs/protocols/kbeacon.md §2) and its behaviour: GAP (Device Name
/// read from the configuration, `gapDeviceName`), GATT and Device Information (read from the device's
/// state, `KBeaconDeviceInformation`); FEA0 with FEA1 (Write + Write Without Response: frames in), FEA2 (Notify: frames
/// out) and FEA3 (Indicate: trigger events); and FE59 with the buttonless DFU characteristic 8EC90003
/// (Write + Indicate, writes need indications enabled first) for Nordic DFU entry (docs/protocols/nordic-dfu.md §2.2).
extension SimulatedKBeacon {
  /// A server for this device. Every FEA1 write goes through the device's protocol engine, whose replies
  /// are notified on FEA2 of the same connection.
  public nonisolated func makeServer(maxMTU: Int = ATTLimits.preferredMTU) -> GATTServer {
    let server = GATTServer(services: services(), maxMTU: maxMTU)
    layout.withLock { $0.servers.append(WeakServer(server: server)) }
    return server
  }

  /// The vendor service new firmware adds before FEA0 [I]: at layout revision r > 0, r read-only
  /// characteristics 0xFFE1… in a service 0xFFE0, so each revision moves FEA0's handles and changes the
  /// Database Hash. Revision 0 (as built) has none.
  static let layoutService = BluetoothUUID(0xFFE0)

  nonisolated func layoutServices() -> [SimulatedService] {
    let revision = databaseRevision
    guard revision > 0 else { return [] }
    return [
      SimulatedService(
        uuid: Self.layoutService,
        characteristics: (1...revision).map { i in
          SimulatedCharacteristic(
            uuid: BluetoothUUID(UInt16(0xFFE0 + min(i, 0x0F))), properties: [.read],
            value: [UInt8(truncatingIfNeeded: i)])
        })
    ]
  }

  /// The GAP Device Name (0x2A00) the device reports now: its configured name — `name` (v2) or `devName`
  /// (v1), docs/protocols/kbeacon.md §6.3 — so it follows a `name` change written over FEA1, as the advertised
  /// name does [I]. A configuration without one reads as empty.
  public var gapDeviceName: String {
    let key = configuration.generation == .legacy ? "devName" : "name"
    return configuration.common.fields[key]?.stringValue ?? ""
  }

  public nonisolated func services() -> [SimulatedService] {
    let kbeacon = self
    let config = SimulatedService(
      uuid: KBeaconGATT.service,
      characteristics: [
        SimulatedCharacteristic(uuid: KBeaconGATT.write, properties: [.write, .writeWithoutResponse]) { write in
          await kbeacon.handleFrame(write)
        },
        SimulatedCharacteristic(uuid: KBeaconGATT.notify, properties: [.notify]),
        SimulatedCharacteristic(uuid: KBeaconGATT.indicate, properties: [.indicate]),
      ])
    let dfu = SimulatedService(
      uuid: DFUGATT.service,
      characteristics: [
        SimulatedCharacteristic(
          uuid: DFUGATT.buttonlessWithoutBonds, properties: [.write, .indicate], requiresSubscriptionForWrites: true
        ) { write in
          await kbeacon.handleButtonless(write)
        }
      ])
    let name = SimulatedCharacteristic(
      uuid: GenericDeviceDatabase.deviceName, properties: [.read],
      onRead: { _ in Array(await kbeacon.gapDeviceName.utf8) })
    return GenericDeviceDatabase.standardServices(deviceName: name, deviceInformation: deviceInformationService())
      + layoutServices() + [config, dfu]
  }

  func handleFrame(_ write: GATTWrite) async {
    let connection = write.connection
    let output = await self.write(write.value, link: ObjectIdentifier(connection), mtu: await connection.mtu)
    for notification in output.notifications { await connection.notify(KBeaconGATT.notify, notification) }
    if output.disconnect { await dropLink(ObjectIdentifier(connection)) }
  }

  func handleButtonless(_ write: GATTWrite) async {
    let reply = buttonless.receive(write.value)
    _ = try? await write.connection.indicate(DFUGATT.buttonlessWithoutBonds, reply.indication)
    guard reply.enterBootloader else { return }
    let name = buttonless.bootloaderName
    await bootloaderHook?(address, name)
    await dropLink(ObjectIdentifier(write.connection))
  }
}
