import BeaconCore
import BlueZ
import Glibc

/// One fleet device served over one real controller, for the VM tier (design.md "The simulator";
/// vm-e2e-recipe.md): the controller advertises the device's PDUs through HCI commands (`HCIAdvertiser`),
/// cycling through its frame slots at its interval, and — when the device is connectable — an L2CAP LE
/// listening socket on CID 4 (`L2CAPListener`) hands each incoming link to the device's GATT server
/// (`ServedGATTLink`). The device advertises with the controller's public address, and its GATT server
/// is made for the device as served (a KBeacon's MD5 challenge involves its MAC, so the simulated KBeacon
/// must have the address the central connects to); callers that build per-address device state (a
/// `KBeaconSimulation`) should pass `ServedAdvertising.device(_:servedAs:)` entries. The device can drop
/// its link itself through `links` (a KBeacon after a wrong password or a reset).
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
      adapter: String, fleetAddress: BluetoothAddress, device: SimulatedDevice, extendedCommands: Bool, scanResponseDropped: Bool)
    case linkOpened(adapter: String, peer: BluetoothAddress, peerType: AddressType)
    case linkClosed(adapter: String, peer: BluetoothAddress, pdus: Int)
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

  public init(
    _ fleetDevice: SimulatedDevice, on adapterName: String, fleetAddress: BluetoothAddress? = nil,
    connectableReannounce: Duration? = nil, links: ServedLinks = ServedLinks(),
    makeServer: @escaping @Sendable (SimulatedDevice) -> GATTServer
  ) {
    self.fleetDevice = fleetDevice
    self.fleetAddress = fleetAddress ?? fleetDevice.address
    self.connectableReannounce = connectableReannounce
    self.links = links
    self.adapterName = adapterName
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
    defer {
      listener?.close()
      hci.close()
    }
    do {
      try await withThrowingTaskGroup(of: Void.self) { group in
        if let listener {
          group.addTask { [links] in
            try await Self.acceptLinks(
              listener, server: server, gate: gate, links: links, deviceAddress: device.address, adapter: adapter.name,
              events: events)
          }
        }
        group.addTask {
          try await Self.advertise(
            device, fleetAddress: fleetAddress, reannounce: device.connectable ? connectableReannounce : .zero, hci: hci, gate: gate, adapter: adapter.name, events: events)
        }
        try await group.next()
        group.cancelAll()
      }
    } catch is CancellationError {
    } catch let error as LinkError where Task.isCancelled && error.code == .closed {
    }
    try? await hci.stop()
  }

  /// Switches to the next PDU every interval, re-announcing every `reannounceEvery` (nil: never), while no
  /// link is up.
  static func advertise(
    _ device: SimulatedDevice, fleetAddress: BluetoothAddress, reannounce reannounceEvery: Duration?, hci: ServedAdvertiser, gate: LinkGate, adapter: String,
    events: @Sendable (Event) -> Void
  ) async throws {
    var advertiser = SimulatedAdvertiser(device: device)
    let start = ContinuousClock.now
    var running = false
    var lastAnnounce = start
    var announced = false
    while true {
      try Task.checkCancellation()
      if await gate.isLinked {
        try await hci.stop()
        running = false
        try await gate.waitUntilIdle()
        continue
      }
      let now = ContinuousClock.now
      let settings = ServedAdvertising.settings(advertisingData: advertiser.nextPDU(elapsed: now - start).data, of: advertiser)
      if running {
        let due = reannounceEvery.map { now - lastAnnounce >= $0 } ?? false
        try await hci.update(settings, reannounce: due)
        if due { lastAnnounce = now }
      } else {
        try await hci.start(settings)
        running = true
        lastAnnounce = now
      }
      if !announced {
        announced = true
        events(
          .advertising(
            adapter: adapter, fleetAddress: fleetAddress, device: device, extendedCommands: hci.usesExtendedCommands,
            scanResponseDropped: ServedAdvertising.dropsScanResponse(advertiser)))
      }
      try await Task.sleep(for: advertiser.nextDelay())
    }
  }

  /// Accepts links one at a time and serves each until it ends.
  static func acceptLinks(
    _ listener: L2CAPListener, server: GATTServer, gate: LinkGate, links: ServedLinks, deviceAddress: BluetoothAddress,
    adapter: String, events: @Sendable (Event) -> Void
  ) async throws {
    while true {
      let link = try await listener.accept()
      guard let fd = link.takeDescriptor() else { continue }
      await gate.opened()
      events(.linkOpened(adapter: adapter, peer: link.peer, peerType: link.peerType))
      var pdus = 0
      if let bearer = try? FileDescriptorBearer(fileDescriptor: fd, peer: link.peer) {
        await links.opened(bearer, for: deviceAddress)
        pdus = await ServedGATTLink.serve(server, over: bearer)
        await links.closed(bearer, for: deviceAddress)
      } else {
        _ = Glibc.close(fd)
      }
      events(.linkClosed(adapter: adapter, peer: link.peer, pdus: pdus))
      await gate.closed()
    }
  }
}

/// Whether a link is up, and a way to wait (cancellably) until none is.
actor LinkGate {
  private var links = 0
  private var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
  private var nextWaiter = 0

  var isLinked: Bool { links > 0 }
  /// Tasks waiting in `waitUntilIdle` (for tests).
  var waiting: Int { waiters.count }

  func opened() { links += 1 }

  func closed() {
    links = max(0, links - 1)
    guard links == 0 else { return }
    for waiter in waiters.values { waiter.resume() }
    waiters = [:]
  }

  func waitUntilIdle() async throws {
    guard links > 0 else { return }
    nextWaiter += 1
    let key = nextWaiter
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
        // Runs on this actor before any cancel(key) can: a cancellation that came first is seen here.
        if Task.isCancelled { waiter.resume(throwing: CancellationError()) } else { waiters[key] = waiter }
      }
    } onCancel: {
      Task { await self.cancel(key) }
    }
  }

  private func cancel(_ key: Int) {
    waiters.removeValue(forKey: key)?.resume(throwing: CancellationError())
  }
}
