import BeaconCore
import NordicDFU

/// An nRF52 device with an SDK 15.3 Secure DFU bootloader, as a GATT peer (docs/protocols/nordic-dfu.md §2.1–2.2): in
/// application mode it is reachable at `address` with the buttonless characteristic (8EC90003) in service
/// FE59; after `01` it resets into the bootloader, which is reachable at the address with the last octet
/// +1 and advertises the name set with `02` (default `DfuTarg`), exposing Control Point (8EC90001, write +
/// notify, CCCD required) and Packet (8EC90002, write without response). The DFU logic is the same
/// `SimulatedDFUTarget` as on serial. Link drops (faults) and resets disconnect the current link — a
/// simulated one (`connect(to:)`) or one served over a real controller (`acceptLink(disconnect:)`).
public actor SimulatedDFUPeripheral {
  public nonisolated let address: BluetoothAddress
  public nonisolated let model: LinkModel
  public private(set) var target: SimulatedDFUTarget
  public private(set) var bootloaderName = "DfuTarg"
  /// Links this device dropped on a fault (writes still queued from a dropped link are ignored, not counted).
  public private(set) var linkDrops = 0
  public private(set) var jumps = 0
  /// Drops the current link (its device end), whichever kind it is.
  private var currentLink: (@Sendable () async -> Void)?
  private var applicationServer: GATTServer?
  private var bootloaderServer: GATTServer?
  private var exitHandler: (@Sendable (BootloaderExit) async -> Void)?
  private var progressHandler: (@Sendable (_ command: [UInt8], _ image: [UInt8]) async -> Void)?
  private var lastActivity = ContinuousClock.now
  private var watchdog: Task<Void, Never>?
  /// After the first planned drop, drop the link on every later data write too (a device whose link
  /// breaks whenever a transfer gets going): no retry can make progress.
  public private(set) var dropEveryDataWrite = false
  /// With `dropEveryDataWrite`: how many data writes after the first planned drop drop the link (nil: all).
  public private(set) var dropsAfterward: Int?

  public init(address: BluetoothAddress, target: SimulatedDFUTarget, model: LinkModel = .instant) {
    self.address = address
    self.target = target
    self.model = model
  }

  /// The bootloader's address: last octet +1, no carry (§2.2).
  public nonisolated var bootloaderAddress: BluetoothAddress { BootloaderLocator.noBondAddress(for: address) }

  public func setFaults(
    _ faults: DFUTargetFaults, dropEveryDataWriteAfterwards: Bool = false, dropsAfterward: Int? = nil
  ) {
    target.faults = faults
    dropEveryDataWrite = dropEveryDataWriteAfterwards
    self.dropsAfterward = dropsAfterward
  }

  /// How the bootloader ended: the new application runs (its `fw_version`), or the inactivity timeout
  /// brought the old application back (§2.6).
  public enum BootloaderExit: Sendable, Equatable {
    case newApplication(version: UInt32?)
    case timedOut
  }

  /// Called when the device leaves its bootloader for an application.
  public func setExitHandler(_ handler: @escaping @Sendable (BootloaderExit) async -> Void) { exitHandler = handler }

  /// Called whenever the bootloader's kept progress changed (an executed init command or data object; a Create
  /// Command erasing it; a bootloader image activated), with `target.executedProgress`, before the answer goes
  /// out: the device's flash holds what it answered for (`SimulatedBootloaderRecord`). Not when an application
  /// is activated: that ends in the exit handler.
  public func setProgressHandler(_ handler: @escaping @Sendable (_ command: [UInt8], _ image: [UInt8]) async -> Void) {
    progressHandler = handler
  }

  /// Puts back the progress of a bootloader an earlier run left (`SimulatedDFUTarget.resume(command:image:)`),
  /// whose inactivity timer last restarted `idle` ago.
  public func resume(command: [UInt8], image: [UInt8], idle: Duration) {
    target.resume(command: command, image: image)
    lastActivity = .now - max(.zero, idle)
  }

  /// Runs the bootloader's inactivity timer (`target.configuration.inactivityTimeout`, §2.6): once no
  /// connect or write has arrived for that long, the link drops and the old application runs again.
  public func startInactivityWatchdog() {
    watchdog?.cancel()
    let timeout = target.configuration.inactivityTimeout
    watchdog = Task { [weak self] in
      while !Task.isCancelled {
        try? await Task.sleep(for: timeout / 4)
        guard let self else { return }
        if await self.checkInactivity(timeout: timeout) { return }
      }
    }
  }

  /// Whether a link to this device is open.
  public var hasLink: Bool { currentLink != nil }

  /// Ends this copy of the bootloader without an exit (`SimulatedBootloaders.forget(application:)`): its timer
  /// stops and its link drops.
  public func stop() async {
    watchdog?.cancel()
    watchdog = nil
    await dropLink()
  }

  /// True when the timer fired (or the bootloader is gone).
  private func checkInactivity(timeout: Duration) async -> Bool {
    guard target.inBootloader else { return true }
    guard ContinuousClock.now - lastActivity >= timeout else { return false }
    target.inactivityElapsed()
    await dropLink()
    await exitHandler?(.timedOut)
    return true
  }

  /// The name the bootloader advertises (what a buttonless `02` sets).
  public func setBootloaderName(_ name: String) { bootloaderName = name }

  /// False plays an SDK 13 buttonless service: `02` is answered "op code not supported" (§2.2) and the
  /// bootloader keeps the name it has.
  public private(set) var acceptsBootloaderName = true
  public func setAcceptsBootloaderName(_ accepts: Bool) { acceptsBootloaderName = accepts }

  /// Which address currently answers (what a scan would see).
  public var advertisedAddress: BluetoothAddress { target.inBootloader ? bootloaderAddress : address }

  /// Advertising data: the bootloader's (Flags, 16-bit UUID FE59, Complete Local Name) or the app's.
  public var advertisingData: [UInt8] {
    target.inBootloader
      ? SimulatedBootloaders.advertisingData(name: bootloaderName)
      : ADEncoder.flags() + ADEncoder.localName("KBPro")
  }

  /// Opens a link if `peer` is the address currently answering.
  public func connect(to peer: BluetoothAddress) async throws -> any ATTBearer {
    guard peer == advertisedAddress else { throw LinkError(.unknownDevice, peer: peer, detail: "not advertising") }
    let server = target.inBootloader ? bootloader() : application()
    lastActivity = .now
    await dropLink()
    let (bearer, link) = try await SimulatedLink.open(to: server, device: peer, model: model)
    currentLink = { await link.disconnect() }
    return bearer
  }

  /// A link opened to this device elsewhere — an L2CAP link accepted on a real controller (`ServedDevice`
  /// in the VM tier): returns the GATT server to serve on it (the bootloader's while in the bootloader),
  /// and remembers `disconnect` as the way to drop it on a reset or fault, as `connect(to:)` does for
  /// simulated links. A previous link is dropped first (one link at a time).
  public func acceptLink(disconnect: @escaping @Sendable () async -> Void) async -> GATTServer {
    lastActivity = .now
    await dropLink()
    currentLink = disconnect
    return target.inBootloader ? bootloader() : application()
  }

  private func dropLink() async {
    if let link = currentLink {
      currentLink = nil
      await link()
    }
  }

  // MARK: the two GATT databases

  private func bootloader() -> GATTServer {
    if let bootloaderServer { return bootloaderServer }
    let controlPoint = SimulatedCharacteristic(
      uuid: DFUGATT.controlPoint, properties: [.write, .notify], requiresSubscriptionForWrites: true
    ) { [weak self] write in await self?.controlPointWritten(write) }
    let packet = SimulatedCharacteristic(uuid: DFUGATT.packet, properties: [.writeWithoutResponse]) {
      [weak self] write in
      await self?.packetWritten(write)
    }
    let server = GATTServer(
      services: [SimulatedService(uuid: DFUGATT.service, characteristics: [controlPoint, packet])], maxMTU: model.maxMTU
    )
    bootloaderServer = server
    return server
  }

  private func application() -> GATTServer {
    if let applicationServer { return applicationServer }
    let buttonless = SimulatedCharacteristic(
      uuid: DFUGATT.buttonlessWithoutBonds, properties: [.write, .indicate], requiresSubscriptionForWrites: true
    ) { [weak self] write in try await self?.buttonlessWritten(write) }
    let server = GATTServer(
      services: [SimulatedService(uuid: DFUGATT.service, characteristics: [buttonless])], maxMTU: model.maxMTU)
    applicationServer = server
    return server
  }

  // MARK: handlers

  private func controlPointWritten(_ write: GATTWrite) async {
    // A write still queued from a link this device dropped: gone with it, as over the air.
    guard currentLink != nil else { return }
    lastActivity = .now
    let before = (target.commandIsExecuted, target.executedOffset)
    let outputs = target.handle(request: write.value)
    if let progressHandler, target.inBootloader, before != (target.commandIsExecuted, target.executedOffset) {
      let progress = target.executedProgress
      await progressHandler(progress.command, progress.image)
    }
    await deliver(outputs, on: write.connection)
  }

  private func packetWritten(_ write: GATTWrite) async {
    guard currentLink != nil else { return }
    lastActivity = .now
    if dropEveryDataWrite, linkDrops > 0, linkDrops <= dropsAfterward ?? .max, target.faults.dropLinkAtByte == nil {
      target.faults.dropLinkAtByte = target.firmwareBytesReceived
    }
    await deliver(target.write(write.value), on: write.connection)
  }

  private func deliver(_ outputs: [DFUTargetOutput], on connection: GATTServerConnection) async {
    // The new application is in place before the final answer goes out, so a client that reconnects to
    // the application right after that answer finds it running.
    if outputs.contains(.reset(runningApplication: true)), !target.inBootloader {
      watchdog?.cancel()
      await exitHandler?(.newApplication(version: target.configuration.applicationVersion))
    }
    for output in outputs {
      switch output {
      case .respond(let bytes): await connection.notify(DFUGATT.controlPoint, bytes)
      case .dropLink:
        if currentLink != nil { linkDrops += 1 }
        await dropLink()
        return
      case .reset:
        // The device resets once its answer is out: the SDK answers the write (authorize reply) before
        // it notifies, so the link ends only after this handler returns and the Write Response is sent.
        let link = currentLink
        currentLink = nil
        Task {
          try? await Task.sleep(for: .milliseconds(20))
          await link?()
        }
      }
    }
  }

  private func buttonlessWritten(_ write: GATTWrite) async throws {
    let request: ButtonlessRequest
    do {
      request = try ButtonlessRequest(bytes: write.value)
    } catch {
      try await write.connection.indicate(
        DFUGATT.buttonlessWithoutBonds,
        ButtonlessResponse(requestOpCode: write.value.first ?? 0, status: .opCodeNotSupported).bytes)
      return
    }
    switch request {
    case .setAdvertisingName where !acceptsBootloaderName:
      try await write.connection.indicate(
        DFUGATT.buttonlessWithoutBonds, ButtonlessResponse(requestOpCode: 0x02, status: .opCodeNotSupported).bytes)
    case .setAdvertisingName(let name):
      bootloaderName = name
      try await write.connection.indicate(
        DFUGATT.buttonlessWithoutBonds, ButtonlessResponse(requestOpCode: 0x02, status: .success).bytes)
    case .enterBootloader:
      try await write.connection.indicate(
        DFUGATT.buttonlessWithoutBonds, ButtonlessResponse(requestOpCode: 0x01, status: .success).bytes)
      jumps += 1
      target.enterBootloader()
      let link = currentLink
      currentLink = nil
      Task { await link?() }
    }
  }
}
