import BeaconCore
import BlueZ
import Glibc

/// One fleet device served over one real controller, for the VM tier (docs/protocols/simulator.md "The simulator";
/// docs/protocols/vm-e2e.md): the controller advertises the device's PDUs through HCI commands (`HCIAdvertiser`),
/// cycling through its frame slots at its interval, and — when the device is connectable — an L2CAP LE
/// listening socket on CID 4 (`L2CAPListener`) hands each incoming link to the device's GATT server
/// (`ServedGATTLink`). The device advertises with the controller's public address (a device on a random
/// address: with its own, `ServedAdvertising.device(_:servedAs:)`), and its GATT server
/// is made for the device as served (a KBeacon's MD5 challenge involves its MAC, so the simulated KBeacon
/// must have the address the central connects to); callers that build per-address device state (a
/// `KBeaconSimulation`) should pass `ServedAdvertising.device(_:servedAs:)` entries. The device can drop
/// its link itself through `links` (a KBeacon after a wrong password or a reset); a drop ends the LE link.
///
/// With `bootloaders` (the `SimulatedBootloaders` its `KBeaconSimulation` hosts bootloaders in) the device
/// also plays its Secure DFU bootloader (docs/protocols/nordic-dfu.md §2.2, `ServedRole`): after a buttonless `01` it
/// drops the link, advertises as the bootloader at its address +1 (LE random), and serves that
/// bootloader's GATT database — the same `SimulatedDFUPeripheral` and `SimulatedDFUTarget` as in process —
/// on incoming links; once the update activates (or the bootloader times out) it advertises and serves its
/// application again at the public address, reporting the new version.
///
/// Every interval the next PDU's data replaces the current one, and advertising is re-announced
/// (`ServedAdvertiser`): that is what makes a BlueZ `btvirt` controller behave like a real beacon, since
/// btvirt reports an advertiser only when advertising or scanning gets enabled. Non-connectable devices
/// re-announce every PDU. Connectable ones re-announce only every `connectableReannounce` (nil: never, the
/// default [I]): an LE Create Connection that lands in the short off-gap fails, and the kernel then hangs
/// the connect until its timeout (seen 1 in ~10 connects at a 1 s period). Without re-announcing, a
/// connectable device is reported once per scan start, with its current frame. While a link is up the device stops advertising and resumes when the
/// link ends [I: one link at a time, like a KBeacon]; a second central waits in the listen backlog.
///
/// While bluetoothd runs it also listens on CID 4 of every controller; the kernel (6.1) gives incoming
/// ATT data to the socket that started listening last, so start serving after bluetoothd.
public struct ServedDevice: Sendable {
  public enum Event: Sendable, Equatable {
    /// Advertising started; `device` is the device as served (with the controller's address), `fleetAddress`
    /// its address in the fleet.
    case advertising(
      adapter: String, fleetAddress: BluetoothAddress, device: SimulatedDevice, extendedCommands: Bool)
    /// A link came in; `bootloader` when the device was in its DFU bootloader then.
    case linkOpened(adapter: String, peer: BluetoothAddress, peerType: AddressType, bootloader: Bool)
    case linkClosed(adapter: String, peer: BluetoothAddress, pdus: Int)
    /// The device advertises as its DFU bootloader: `name` at `address` (random).
    case bootloaderAdvertising(adapter: String, fleetAddress: BluetoothAddress, name: String, address: BluetoothAddress)
    /// The device left its bootloader: a new application runs, or the old one after the timeout.
    case bootloaderLeft(adapter: String, fleetAddress: BluetoothAddress, exit: SimulatedDFUPeripheral.BootloaderExit)
  }

  public let fleetDevice: SimulatedDevice
  /// The device's address in the fleet file, for the lines printed (it may already be served-as).
  public let fleetAddress: BluetoothAddress
  /// How often a connectable device re-announces; nil never (see the type's doc comment).
  public let connectableReannounce: Duration?
  /// Where the open link is registered, under the fleet address, so the device can drop it.
  public let links: ServedLinks
  public let adapterName: String
  /// Makes the device's GATT server; the same factory `--adapter sim` uses, so both serve one database.
  public let makeServer: @Sendable (SimulatedDevice) -> GATTServer
  /// Where the device's DFU bootloader runs once it jumped (nil: it never plays a bootloader).
  public let bootloaders: SimulatedBootloaders?
  /// What the device (as served) advertises now — a KBeacon its current configuration
  /// (`KBeaconSimulation.advertisedDevice`); read whenever application advertising (re)starts, so a write
  /// over a link shows when the link ends. Nil: the fleet entry's frames, always.
  public let advertised: (@Sendable (SimulatedDevice) async -> SimulatedDevice)?

  public init(
    _ fleetDevice: SimulatedDevice, on adapterName: String, fleetAddress: BluetoothAddress? = nil,
    connectableReannounce: Duration? = nil, links: ServedLinks = ServedLinks(),
    bootloaders: SimulatedBootloaders? = nil,
    advertised: (@Sendable (SimulatedDevice) async -> SimulatedDevice)? = nil,
    makeServer: @escaping @Sendable (SimulatedDevice) -> GATTServer
  ) {
    self.advertised = advertised
    self.fleetDevice = fleetDevice
    self.fleetAddress = fleetAddress ?? fleetDevice.address
    self.connectableReannounce = connectableReannounce
    self.links = links
    self.adapterName = adapterName
    self.bootloaders = bootloaders
    self.makeServer = makeServer
  }

  /// Serves until the task is cancelled, then stops advertising. Throws when the controller or the socket
  /// layer refuses (no such adapter, Command Disallowed, …).
  public func run(events: @escaping @Sendable (Event) -> Void) async throws {
    let adapter = try Adapter.named(adapterName)
    let device = ServedAdvertising.device(fleetDevice, servedAs: adapter.address)
    let hci = try await ServedAdvertiser(adapter: adapter)
    let listener = device.connectable ? try L2CAPListener(adapter: adapter) : nil
    let gate = LinkGate()
    let server = makeServer(device)
    let changes = bootloaders?.changes()
    defer {
      listener?.close()
      hci.close()
    }
    let context = Context(
      device: device, fleetAddress: fleetAddress, adapter: adapter.name, gate: gate, links: links,
      bootloaders: bootloaders,
      advertised: advertised, events: events)
    do {
      try await withThrowingTaskGroup(of: Void.self) { group in
        if let listener {
          group.addTask { try await Self.acceptLinks(listener, server: server, context) }
        }
        if let changes {
          // The role changes while the loop may be asleep or waiting for a link to end: wake it. (The stream
          // ends only when this task is cancelled.)
          group.addTask {
            for await change in changes {
              switch change {
              case .entered(let application, _, _) where application == device.address:
                await gate.poke()
              case .left(let application, let exit) where application == device.address:
                events(.bootloaderLeft(adapter: adapter.name, fleetAddress: fleetAddress, exit: exit))
                await gate.poke()
              default: continue
              }
            }
          }
        }
        group.addTask {
          try await Self.advertise(context, reannounce: device.connectable ? connectableReannounce : .zero, hci: hci)
        }
        try await group.next()
        group.cancelAll()
      }
    } catch is CancellationError {
    } catch let error as LinkError where Task.isCancelled && error.code == .closed {
    }
    // Advertising Enable 0x00 before the socket closes, or the controller keeps advertising after the process
    // ends (seen in the VM tier's monitor scenario). It runs in a task of its own: this one is cancelled by
    // now, and a cancelled task's HCI command fails before it is sent (`PendingReplies.wait`).
    await Task { try? await hci.stop() }.value
  }

  /// What the loops of one served device share.
  struct Context: Sendable {
    let device: SimulatedDevice
    let fleetAddress: BluetoothAddress
    let adapter: String
    let gate: LinkGate
    let links: ServedLinks
    let bootloaders: SimulatedBootloaders?
    let advertised: (@Sendable (SimulatedDevice) async -> SimulatedDevice)?
    let events: @Sendable (Event) -> Void

    /// What the application advertises now (see `ServedDevice.advertised`).
    func currentDevice() async -> SimulatedDevice { await advertised?(device) ?? device }

    /// The device's role now.
    var role: ServedRole { ServedRole.current(of: device.address, in: bootloaders) }
  }

  /// Accepts links one at a time and serves each until it ends: with the application's GATT server, or
  /// while the device is in its bootloader, with the bootloader's (which can then drop the link itself).
  static func acceptLinks(_ listener: L2CAPListener, server: GATTServer, _ context: Context) async throws {
    let address = context.device.address
    while true {
      let link = try await listener.accept()
      guard let fd = link.takeDescriptor() else { continue }
      await context.gate.opened()
      let bootloader = context.bootloaders?.peripheral(ofApplication: address)
      context.events(
        .linkOpened(adapter: context.adapter, peer: link.peer, peerType: link.peerType, bootloader: bootloader != nil))
      var pdus = 0
      if let bearer = try? FileDescriptorBearer(fileDescriptor: fd, peer: link.peer) {
        await context.links.opened(bearer, for: address) { try? await link.disconnectLink() }
        let links = context.links
        let served = await bootloader?.acceptLink(disconnect: { await links.drop(bearer, for: address) }) ?? server
        pdus = await ServedGATTLink.serve(served, over: bearer)
        await context.links.closed(bearer, for: address)
      } else {
        _ = Glibc.close(fd)
      }
      context.events(.linkClosed(adapter: context.adapter, peer: link.peer, pdus: pdus))
      await context.gate.closed()
    }
  }
}
