import BeaconCore
import BlueZ
import Glibc
import NordicDFU
import Testing

@testable import Simulator

/// A device served over a real controller (`sim serve`, the VM tier) playing its Secure DFU bootloader
/// (docs/protocols/nordic-dfu.md §2.2): the role it advertises (`ServedRole`), the application → bootloader → application
/// cycle through `SimulatedBootloaders` with the bootloader's GATT database on a link accepted from
/// outside (`SimulatedDFUPeripheral.acceptLink`), the loop's wake-ups (`LinkGate`) and device-side drops
/// (`ServedLinks`) — everything but the controller, which runs in scripts/vm/scenarios/dfu.sh.
@Suite(.timeLimit(.minutes(3))) struct ServedDFURoleTests {
  /// hci1's public address under btvirt.
  let application = BluetoothAddress("00:AA:01:01:00:01")!
  let bootloader = BluetoothAddress("00:AA:01:01:00:02")!

  @Test func theBootloaderAdvertisesAtAddressPlusOneAsARandomAddress() throws {
    let role = ServedRole.bootloader(name: "Dfu010001", address: bootloader)
    let settings = try #require(role.bootloaderSettings)
    #expect(settings.randomAddress == bootloader)
    #expect(settings.ownAddressType == 0x01)  // LE random
    #expect(settings.connectable && settings.scanResponseData.isEmpty)
    #expect(settings.interval == 40)  // 40 × 0.625 ms = 25 ms
    // 02 01 06 Flags | 03 03 59 FE complete 16-bit UUIDs: FE59 | 0A 09 "Dfu010001" Complete Local Name
    #expect(
      settings.advertisingData == [0x02, 0x01, 0x06, 0x03, 0x02, 0x59, 0xFE, 0x0A, 0x09] + Array("Dfu010001".utf8))
    #expect(ServedRole.application.bootloaderSettings == nil)
    #expect(ServedRole.current(of: application, in: nil) == .application)
  }

  @Test func aServedKBeaconGoesApplicationThenBootloaderThenNewApplication() async throws {
    let entry = SimulatedDevice(address: BluetoothAddress("DD:34:02:06:D1:21")!, kind: .kbeaconPro, name: "KBPro_DFU01")
    let served = ServedAdvertising.device(entry, servedAs: application)
    let kbeacons = KBeaconSimulation(fleet: SimulatedFleet(devices: [served]), now: { 1_763_800_000 })
    let bootloaders = SimulatedBootloaders(model: .instant)
    kbeacons.hostBootloaders(in: bootloaders)
    var changes = bootloaders.changes().makeAsyncIterator()
    #expect(ServedRole.current(of: application, in: bootloaders) == .application)

    // The buttonless jump as the DFU client does it: indications on, 02 (name), 01 (enter).
    let client = GATTClient(bearer: try await kbeacons.connect(to: application))
    let buttonless = try await client.characteristic(DFUGATT.buttonlessWithoutBonds, inService: DFUGATT.service)
    _ = try await client.subscribe(to: buttonless)
    try await client.write(ButtonlessRequest.setAdvertisingName("DfuServed").bytes, to: buttonless.valueHandle)
    try? await client.write([0x01], to: buttonless.valueHandle)
    await client.close()
    #expect(await changes.next() == .entered(application: application, bootloader: bootloader, name: "DfuServed"))
    #expect(ServedRole.current(of: application, in: bootloaders) == .bootloader(name: "DfuServed", address: bootloader))

    // The bootloader's database on links accepted from outside, as `ServedDevice` hands them over.
    let peripheral = try #require(bootloaders.peripheral(ofApplication: application))
    let factory = AcceptedLinks(peripheral: peripheral, address: bootloader)
    let image = DFUTestPackages.application(4000, version: 66051)
    try await DFUTransfer(factory: factory, pause: { _ in }).run([image])
    #expect(await peripheral.target.activated.map(\.firmware) == [image.firmware])

    // Activation: the bootloader leaves, the application runs the new version, and it dropped the link.
    #expect(await changes.next() == .left(application: application, exit: .newApplication(version: 66051)))
    #expect(ServedRole.current(of: application, in: bootloaders) == .application)
    #expect(await kbeacons.kbeacon(application)?.firmwareVersion == "V660.51")
    await factory.waitForDrop()
    #expect(await factory.drops == 1)
  }

  @Test func theAdvertisingLoopWakesOnAPokeOrAfterItsTimeout() async throws {
    let gate = LinkGate()
    let revision = await gate.revision
    let clock = ContinuousClock()
    let start = clock.now
    try await gate.waitForChange(since: revision, timeout: .milliseconds(50))  // nothing happens: the timeout
    #expect(clock.now - start >= .milliseconds(50))
    // An hour's timeout, so only the poke can end the wait within the suite's time limit (a 30 s timeout
    // once came within 2 s of a 20 s bound on a loaded machine under AddressSanitizer).
    let waiter = Task { try await gate.waitForChange(since: revision, timeout: .seconds(3600)) }
    await gate.waitForWaiters(1)
    await gate.poke()  // the role changed
    try await waiter.value
    #expect(clock.now - start < .seconds(1800))
    #expect(await gate.revision == revision + 1)
    try await gate.waitForChange(since: revision, timeout: nil)  // already changed: returns at once
    #expect(await gate.waiting == 0)
  }

  @Test func aDeviceSideDropEndsTheLELinkThenClosesTheSocket() async throws {
    var fds: [Int32] = [-1, -1]
    #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0)
    defer { Glibc.close(fds[1]) }
    let bearer = try FileDescriptorBearer(fileDescriptor: fds[0], peer: application)
    let links = ServedLinks()
    let log = DropLog()
    let central = fds[1]
    await links.opened(bearer, for: application) {
      // still open while the LE link is ended: a read finds nothing yet rather than end of file
      var byte: UInt8 = 0
      let n = recv(central, &byte, 1, Int32(MSG_DONTWAIT))
      await log.append(n < 0 && errno == EAGAIN ? "disconnect, socket open" : "disconnect, socket closed")
    }
    await links.drop(application)
    #expect(await log.entries == ["disconnect, socket open"])
    var byte: UInt8 = 0
    #expect(recv(fds[1], &byte, 1, 0) == 0)  // then closed: end of file
    await links.drop(application)  // nothing left to drop
    #expect(await log.entries.count == 1)
  }

  /// A central that vanished (killed mid-transfer) closed its link to the bootloader from its side; the next
  /// central's link is accepted, and the bootloader drops the link it replaces (`acceptLink`), which is the
  /// first one. Only that link may be ended: ending every link of the device ended the new one too, at 0 ATT
  /// PDUs, on every retry, and the VM tier's guest kernel hit a list corruption on those closes.
  @Test func droppingALinkThatAlreadyClosedLeavesTheNextLinkOpen() async throws {
    var first: [Int32] = [-1, -1]
    var second: [Int32] = [-1, -1]
    #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &first) == 0)
    #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &second) == 0)
    defer { Glibc.close(second[1]) }
    let gone = try FileDescriptorBearer(fileDescriptor: first[0], peer: application)
    let next = try FileDescriptorBearer(fileDescriptor: second[0], peer: application)
    let links = ServedLinks()
    let log = DropLog()
    await links.opened(gone, for: bootloader) { await log.append("first ended") }
    Glibc.close(first[1])  // the vanished central's side
    await links.closed(gone, for: bootloader)
    await links.opened(next, for: bootloader) { await log.append("next ended") }

    await links.drop(gone, for: bootloader)
    #expect(await log.entries.isEmpty)
    var byte: UInt8 = 0
    #expect(recv(second[1], &byte, 1, Int32(MSG_DONTWAIT)) < 0 && errno == EAGAIN)  // still open
    // The bootloader's own drop of the link it serves (after activating) still ends it.
    await links.drop(next, for: bootloader)
    #expect(await log.entries == ["next ended"])
    #expect(recv(second[1], &byte, 1, 0) == 0)
  }
}

/// A `DFULinkFactory` whose links are accepted by the peripheral from outside, like a served L2CAP link:
/// the peripheral gets a way to drop each one, and counts how often it did.
actor AcceptedLinks: DFULinkFactory {
  let peripheral: SimulatedDFUPeripheral
  let address: BluetoothAddress
  private(set) var drops = 0
  private var link: SimulatedLink?
  private var dropWaiters: [CheckedContinuation<Void, Never>] = []

  /// Returns once the device has dropped a link (signalled by the drop itself).
  func waitForDrop() async {
    guard drops == 0 else { return }
    await withCheckedContinuation { dropWaiters.append($0) }
  }

  init(peripheral: SimulatedDFUPeripheral, address: BluetoothAddress) {
    self.peripheral = peripheral
    self.address = address
  }

  func open(image: Int) async throws -> any DFULink {
    let server = await peripheral.acceptLink(disconnect: { await self.drop() })
    let (bearer, link) = try await SimulatedLink.open(to: server, device: address)
    self.link = link
    return try await GATTDFULink.open(client: GATTClient(bearer: bearer), responseTimeout: .seconds(5))
  }

  private func drop() async {
    drops += 1
    for waiter in dropWaiters { waiter.resume() }
    dropWaiters = []
    await link?.disconnect()
  }
}

actor DropLog {
  private(set) var entries: [String] = []
  func append(_ entry: String) { entries.append(entry) }
}
