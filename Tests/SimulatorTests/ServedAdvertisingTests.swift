import BeaconCore
import Testing

@testable import Simulator

/// `ServedAdvertising` and `LinkGate`: the pure parts of serving fleet devices over a real controller
/// (`beacon-provision sim serve`, the VM tier). The controller side runs in scripts/vm/scenarios.
@Suite(.timeLimit(.minutes(3))) struct ServedAdvertisingTests {
  /// A btvirt controller's address (hci1), which served devices take.
  let controller = BluetoothAddress("00:AA:01:01:00:01")!

  let kbeacon = SimulatedDevice(
    address: BluetoothAddress("DD:34:02:06:D1:01")!, kind: .kbeaconPro, name: "KB", intervalMs: 300,
    sensor: SensorSection(batteryMillivolts: 3012, temperature: 21.5),
    system: SystemSection(model: 12, batteryPercent: 95, firmware: "5.12"))

  @Test func intervalIsMillisecondsInUnitsOf0625msClampedToTheLegacyRange() {
    #expect(ServedAdvertising.interval(milliseconds: 300) == 0x01E0)  // 300 / 0.625 = 480
    #expect(ServedAdvertising.interval(milliseconds: 1000) == 0x0640)  // 1600
    #expect(ServedAdvertising.interval(milliseconds: 10) == 0x0020)  // below 20 ms → the 20 ms floor
    #expect(ServedAdvertising.interval(milliseconds: 20_000) == 0x4000)  // above 10.24 s → the ceiling
  }

  @Test func servedDeviceTakesTheControllerAddressAndItsMACMarkerFollows() throws {
    let served = ServedAdvertising.device(kbeacon, servedAs: controller)
    #expect(served.address == controller)
    #expect(served.addressType == .public)
    #expect(served.name == "KB")
    // KBeacon Pro scan response: name AD (04 09 "KB"… ) then the 0x2080 service data whose last six
    // octets are battery 0x5F (95 %), marker 00 01, and the MAC's low three bytes — now 01 00 01.
    let response = try #require(SimulatedAdvertiser(device: served).scanResponse)
    #expect(Array(response.suffix(6)) == [0x5F, 0x00, 0x01, 0x01, 0x00, 0x01])
  }

  /// A device on a static random address (a KKM tag's, docs/protocols/kbeacon.md §14) keeps it: the controller
  /// advertises from it — LE Set Random Address, then own address type 0x01 (Core v5.4 Vol 4 Part E
  /// §7.8.4, §7.8.5) — so a central reaches it only as a random address.
  @Test func randomAddressDeviceIsServedFromItsOwnRandomAddress() {
    var random = kbeacon
    random.addressType = .random
    let served = ServedAdvertising.device(random, servedAs: controller)
    #expect(served.address == kbeacon.address && served.addressType == .random)
    let settings = ServedAdvertising.settings(
      advertisingData: [0x02, 0x01, 0x06], of: SimulatedAdvertiser(device: served))
    #expect(settings.randomAddress == kbeacon.address)
    #expect(settings.ownAddressType == 0x01)
    let publicSettings = ServedAdvertising.settings(
      advertisingData: [0x02, 0x01, 0x06],
      of: SimulatedAdvertiser(device: ServedAdvertising.device(kbeacon, servedAs: controller)))
    #expect(publicSettings.randomAddress == nil && publicSettings.ownAddressType == 0x00)
  }

  @Test func connectableDeviceIsServedAsADV_INDWithItsScanResponse() {
    let advertiser = SimulatedAdvertiser(device: ServedAdvertising.device(kbeacon, servedAs: controller))
    let data: [UInt8] = [0x02, 0x01, 0x06]  // Flags AD: length 2, type 0x01, LE General Discoverable + no BR/EDR
    let settings = ServedAdvertising.settings(advertisingData: data, of: advertiser)
    #expect(settings.connectable)
    #expect(settings.interval == 0x01E0)
    #expect(settings.advertisingData == data)
    #expect(settings.scanResponseData == advertiser.scanResponse)
    #expect(settings.pdu == .advInd)
  }

  @Test func namedNonConnectableBeaconIsServedAsADV_SCAN_INDWithItsName() {
    let iBeacon = SimulatedDevice(
      address: BluetoothAddress("AC:23:3F:00:00:10")!, kind: .iBeacon, name: "Store", connectable: false,
      iBeacon: IBeaconSection(uuid: DemoFleet.storeUUID, major: 7, minor: 42))
    let advertiser = SimulatedAdvertiser(device: iBeacon)
    #expect(advertiser.pduKind == .scannable)
    let settings = ServedAdvertising.settings(advertisingData: [0x02, 0x01, 0x04], of: advertiser)
    #expect(!settings.connectable)
    #expect(settings.scanResponseData == advertiser.scanResponse)
    #expect(settings.pdu == .advScanInd)
    // The name AD structure (0x09 Complete Local Name "Store") is what an active scanner gets.
    #expect(settings.scanResponseData.starts(with: [0x06, 0x09] + Array("Store".utf8)))
  }

  @Test func plainNonConnectableBeaconHasNothingToDrop() {
    let eddystone = SimulatedDevice(
      address: BluetoothAddress("E1:DD:57:00:00:10")!, kind: .eddystone,
      eddystoneURL: EddystoneURLSection(url: "https://www.example.com/vm"))
    let advertiser = SimulatedAdvertiser(device: eddystone)
    let settings = ServedAdvertising.settings(advertisingData: [], of: advertiser)
    #expect(!settings.connectable && settings.scanResponseData.isEmpty)
    #expect(settings.pdu == .advNonconnInd)
  }

  @Test func linkGateReleasesWaitersWhenTheLastLinkCloses() async throws {
    let gate = LinkGate()
    try await gate.waitUntilIdle()  // no link: returns at once
    await gate.opened()
    await gate.opened()
    let waiter = Task { try await gate.waitUntilIdle() }
    await gate.waitForWaiters(1)  // the waiter is parked, not returned early
    await gate.closed()
    #expect(await gate.isLinked)
    #expect(await gate.waiting == 1)
    await gate.closed()
    try await waiter.value
    #expect(await !gate.isLinked)
    #expect(await gate.waiting == 0)
  }

  @Test func cancellingAWaitEndsItWhileALinkIsStillUp() async {
    let gate = LinkGate()
    await gate.opened()
    let waiter = Task { try await gate.waitUntilIdle() }
    waiter.cancel()
    await #expect(throws: CancellationError.self) { try await waiter.value }
    #expect(await gate.isLinked)
  }
}
