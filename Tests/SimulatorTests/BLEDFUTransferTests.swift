import BeaconCore
import NordicDFU
import Testing

@testable import Simulator

/// Secure DFU over GATT against the simulated nRF52 (docs/protocols/nordic-dfu.md §2): buttonless entry, bootloader at
/// address +1, Control Point + Packet transfer through the real GATT client, ATT PDUs and fd bearer.
@Suite(.timeLimit(.minutes(3))) struct BLEDFUTransferTests {
  let device = BluetoothAddress("C0:11:22:33:44:FF")!

  func factory(_ central: SimulatedDFUCentral, device: BluetoothAddress? = nil) -> BLEDFULinkFactory {
    BLEDFULinkFactory(
      central: central, device: device ?? self.device, connectTimeout: .seconds(5), scanTimeout: .seconds(3),
      responseTimeout: .seconds(5))
  }

  @Test func buttonlessJumpThenSignedFixtureOverGATT() async throws {
    var config = DFUTargetConfiguration()
    config.publicKey = try DFUTestPackages.publicKey()
    var target = SimulatedDFUTarget(configuration: config)
    target.inactivityElapsed()  // running its application, as a deployed beacon is
    let peripheral = SimulatedDFUPeripheral(address: device, target: target)
    let factory = factory(SimulatedDFUCentral(peripherals: [peripheral]))
    let package = try DFUTestPackages.fixture("app_signed.zip")
    try await DFUTransfer(factory: factory, configuration: DFUEngineConfiguration(receiptInterval: 12), pause: { _ in })
      .run(package.transferImages)
    #expect(await peripheral.jumps == 1)
    // the name written with 02 is the one the bootloader advertised; FF wrapped to 00 without carry
    #expect(await peripheral.bootloaderName == "DfuC011223344FF-1")
    #expect(await factory.entry == .named("DfuC011223344FF-1"))
    #expect(await factory.bootloaderAddress == BluetoothAddress("C0:11:22:33:44:00")!)
    let final = await peripheral.target
    #expect(final.activated.map(\.firmware) == [package.images[0].firmware])
    #expect(final.configuration.applicationVersion == 3 && !final.inBootloader)
  }

  @Test func dropsDuringAGATTTransferResume() async throws {
    var rng = SeededGenerator(seed: 0xB1E)
    let image = DFUTestPackages.application(12000)
    let peripheral = SimulatedDFUPeripheral(address: device, target: SimulatedDFUTarget())
    let factory = factory(SimulatedDFUCentral(peripherals: [peripheral]))
    for _ in 0..<3 {
      // each run drops 500–2999 bytes after what the target has received so far, so no run completes
      let base = await peripheral.target.firmwareBytesReceived
      let drop = base + Int(rng.next() % 2500) + 500
      await peripheral.setFaults(DFUTargetFaults(dropLinkAtByte: drop))
      _ = try? await DFUTransfer(
        factory: factory,
        configuration: DFUEngineConfiguration(receiptInterval: 0, maximumReconnectsWithoutProgress: 0), pause: { _ in }
      ).run([image])
      // Nothing from after the drop reaches the target, not even packets the link had already queued.
      // They once did: arriving after `base` was read, they used up the next run's drop, that run went on
      // to activate the image, and the final run activated it a second time.
      let received = await peripheral.target.firmwareBytesReceived
      #expect(received == drop, "the target took \(received - drop) byte(s) from after the drop")
    }
    // now a run with reconnects allowed completes from wherever the target is
    try await DFUTransfer(factory: factory, configuration: DFUEngineConfiguration(receiptInterval: 6), pause: { _ in })
      .run([image])
    #expect(await peripheral.linkDrops == 3)
    let activated = await peripheral.target.activated.map(\.firmware)
    #expect(activated == [image.firmware], "activated \(activated.count) image(s)")
  }

  @Test func softDeviceBootloaderThenApplicationReconnectsToTheBootloader() async throws {
    let peripheral = SimulatedDFUPeripheral(address: device, target: SimulatedDFUTarget())
    let factory = factory(SimulatedDFUCentral(peripherals: [peripheral]))
    let sdbl = DFUTestPackages.softDeviceBootloader()
    let app = DFUTestPackages.application(5000)
    try await DFUTransfer(factory: factory, pause: { _ in }).run([sdbl, app])
    let target = await peripheral.target
    #expect(target.activated.map(\.type) == [.softDeviceBootloader, .application])
    #expect(target.activated.map(\.firmware) == [sdbl.firmware, app.firmware])
  }

  @Test func bootloaderIsFoundByNameWhenNotAtTheExpectedAddress() async throws {
    // The bootloader answers at 22:22:22:22:22:23, advertising the name the factory expects for a device
    // it knows as 10:00:00:00:00:01 (neither that address nor +1 answers): only the scan finds it.
    let other = BluetoothAddress("22:22:22:22:22:22")!
    let peripheral = SimulatedDFUPeripheral(address: other, target: SimulatedDFUTarget())
    let known = BluetoothAddress("10:00:00:00:00:01")!
    let factory = BLEDFULinkFactory(
      central: SimulatedDFUCentral(peripherals: [peripheral]), device: known, bootloaderName: "DfuTarg",
      connectTimeout: .seconds(5), scanTimeout: .seconds(3), responseTimeout: .seconds(5))
    try await DFUTransfer(factory: factory, pause: { _ in }).run([DFUTestPackages.application(3000)])
    #expect(await factory.bootloaderAddress == BluetoothAddress("22:22:22:22:22:23")!)
    #expect(await peripheral.target.activated.count == 1)
  }
}

extension BLEDFUTransferTests {
  @Test func bootloaderAddedAfterAnApplicationJumpIsFoundAtAddressPlusOne() async throws {
    // what the fleet does when a simulated KBeacon's buttonless 01 fires its bootloader hook
    let central = SimulatedDFUCentral()
    let bootloader = await central.addBootloader(for: device, name: "Dfu3344FF")
    try await DFUTransfer(factory: factory(central), pause: { _ in }).run([DFUTestPackages.application(2000)])
    #expect(await bootloader.target.activated.count == 1)
    #expect(await bootloader.jumps == 0)  // no application answered: the factory went straight to +1
  }
}
