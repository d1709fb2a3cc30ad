import BeaconCore
import NordicDFU
import Testing

@testable import Simulator

/// `BLEDFULinkFactory` reaches only its own device's bootloader (docs/protocols/nordic-dfu.md §2.2), against simulated
/// nRF52 devices whose no-bond bootloaders come up at the application address + 1.
@Suite(.timeLimit(.minutes(2))) struct BootloaderIdentityTests {
  /// A device running its application (a fresh target sits in its bootloader).
  static func application(_ address: String, acceptsName: Bool = true) async -> SimulatedDFUPeripheral {
    var target = SimulatedDFUTarget()
    target.inactivityElapsed()
    let peripheral = SimulatedDFUPeripheral(address: BluetoothAddress(address)!, target: target)
    await peripheral.setAcceptsBootloaderName(acceptsName)
    return peripheral
  }

  static func factory(_ central: SimulatedDFUCentral, device: String) -> BLEDFULinkFactory {
    BLEDFULinkFactory(
      central: central, device: BluetoothAddress(device)!, connectTimeout: .seconds(2), scanTimeout: .milliseconds(300),
      responseTimeout: .seconds(2), silenceWindow: .milliseconds(200))
  }

  @Test func anSDK13DeviceRefusesTheNameAndIsUpdatedAtAddressPlusOne() async throws {
    let peripheral = await Self.application("C0:11:22:33:44:10", acceptsName: false)
    let factory = Self.factory(SimulatedDFUCentral(peripherals: [peripheral]), device: "C0:11:22:33:44:10")
    let image = DFUTestPackages.application(3000)
    try await DFUTransfer(factory: factory, pause: { _ in }).run([image])
    #expect(await factory.entry == .unnamed)
    #expect(await factory.bootloaderAddress == BluetoothAddress("C0:11:22:33:44:11")!)
    #expect(await peripheral.bootloaderName == "DfuTarg")  // 02 was answered 20 02 02 and changed nothing
    #expect(await peripheral.jumps == 1)
    #expect(await peripheral.target.activated.map(\.firmware) == [image.firmware])
  }

  /// An SDK 13 device whose address + 1 already has a bootloader advertising (not one it started) is not
  /// sent into its own: the two could not be told apart.
  @Test func anSDK13DeviceDoesNotJumpWhileABootloaderAdvertisesAtItsAddressPlusOne() async throws {
    let device = await Self.application("C0:11:22:33:44:20", acceptsName: false)
    // another device's bootloader at …:21 (a fresh target for application …:20 is in its bootloader)
    let other = SimulatedDFUPeripheral(address: BluetoothAddress("C0:11:22:33:44:20")!, target: SimulatedDFUTarget())
    let factory = Self.factory(SimulatedDFUCentral(peripherals: [device, other]), device: "C0:11:22:33:44:20")
    do {
      _ = try await factory.open(image: 0)
      Issue.record("a link was opened")
    } catch let error as DFUTransportError {
      #expect(error.message.contains("a bootloader already advertises at C0:11:22:33:44:21"), "\(error)")
    }
    #expect(await device.jumps == 0)
    #expect(await factory.entry == .none)
  }

  /// A bootloader answering at the device's own address (the previous address's bootloader, …:30 + 1) is
  /// not taken for the device's: with no bootloader of its own to be found, opening fails and nothing is
  /// sent to the neighbour's.
  @Test func aBootloaderAtTheDevicesOwnAddressIsNotTakenForItsOwn() async throws {
    let neighbour = SimulatedDFUPeripheral(
      address: BluetoothAddress("C0:11:22:33:44:30")!, target: SimulatedDFUTarget())
    let device = await Self.application("C0:11:22:33:44:31")
    // the neighbour's bootloader shadows the device's application at …:31
    let factory = Self.factory(SimulatedDFUCentral(peripherals: [neighbour, device]), device: "C0:11:22:33:44:31")
    await #expect(throws: DFUTransportError.self) { _ = try await factory.open(image: 0) }
    #expect(await factory.bootloaderAddress == nil)
    let untouched = await neighbour.target
    #expect(untouched.command.isEmpty && untouched.activated.isEmpty)
    #expect(await device.jumps == 0)
  }

  /// `bootloaderWaiting` (a resume whose scan heard the device only as its bootloader): the open goes to the waiting
  /// bootloader without a connect to the application; and when that bootloader has left since (its inactivity
  /// timeout ran out, the application is back), the open fails without a jump — the application must be read before
  /// it is updated, which the visit's next attempt does.
  @Test func aBootloaderHeardWaitingIsOpenedWithoutTheApplicationAndAGoneOneIsNotJumpedTo() async throws {
    let device = BluetoothAddress("C0:11:22:33:44:40")!
    let waiting = SimulatedDFUPeripheral(address: device, target: SimulatedDFUTarget())
    await waiting.setBootloaderName(BootloaderName.make(for: device, attempt: 1))
    let central = SimulatedDFUCentral(peripherals: [waiting])
    let factory = BLEDFULinkFactory(
      central: central, device: device, bootloaderWaiting: true, connectTimeout: .seconds(2),
      scanTimeout: .milliseconds(300), responseTimeout: .seconds(2))
    _ = try await factory.open(image: 0)
    #expect(await factory.bootloaderAddress == BluetoothAddress("C0:11:22:33:44:41")!)
    #expect(central.connects == [BluetoothAddress("C0:11:22:33:44:41")!], "no connect to the application")

    let back = await Self.application("C0:11:22:33:44:50")
    let other = SimulatedDFUCentral(peripherals: [back])
    let gone = BLEDFULinkFactory(
      central: other, device: BluetoothAddress("C0:11:22:33:44:50")!, bootloaderWaiting: true,
      connectTimeout: .seconds(2), scanTimeout: .milliseconds(300), responseTimeout: .seconds(2))
    await #expect(throws: DFUTransportError.self) { _ = try await gone.open(image: 0) }
    #expect(await back.jumps == 0)
    #expect(!other.connects.contains(BluetoothAddress("C0:11:22:33:44:50")!), "the application was not linked to")
    #expect(await gone.entry == .none)
  }
}
