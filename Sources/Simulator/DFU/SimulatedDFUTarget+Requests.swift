import NordicDFU

/// Request handling of the simulated bootloader: the SDK 15.3 rules of docs/protocols/nordic-dfu.md §2.5 (command
/// object, data objects, checksum, execute incl. the "already executed → 0x08" quirk) and §4 (ping, MTU).
extension SimulatedDFUTarget {
  typealias Result = ControlPointResponse.Result

  mutating func answer(_ request: ControlPointRequest) -> Result {
    switch request {
    case .protocolVersion: return .success(.protocolVersion(1))
    case .ping(let id): return .success(.ping(id))
    case .getMTU: return .success(.mtu(configuration.serialMTU))
    case .setReceiptInterval(let n):
      receiptInterval = Int(n)
      writesSinceReceipt = 0
      return .success(.none)
    case .hardwareVersion:
      // part 0x52840, variant "AAD0", 1 MiB flash, 256 KiB RAM, 4 KiB pages
      return .success(.raw([0x40, 0x28, 0x05, 0x00, 0x30, 0x44, 0x41, 0x41, 0, 0, 0x10, 0, 0, 0, 4, 0, 0, 0x10, 0, 0]))
    case .firmwareVersion: return .failure(.opCodeNotSupported, extended: nil)
    case .select(let type):
      currentType = type
      switch type {
      case .command:
        return .success(
          .select(
            maximumSize: configuration.maximumCommandSize, offset: UInt32(command.count), crc: CRC32.checksum(command)))
      case .data:
        return .success(
          .select(
            maximumSize: configuration.maximumDataObjectSize, offset: UInt32(image.count), crc: CRC32.checksum(image)))
      }
    case .create(let type, let size):
      currentType = type
      writesSinceReceipt = 0
      return type == .command ? createCommand(size: Int(size)) : createData(size: Int(size))
    case .calculateChecksum: return .success(checksumPayload)
    case .execute: return currentType == .command ? executeCommand() : executeData()
    case .write, .abort: return .success(.none)  // handled by the caller
    }
  }

  /// `nrf_dfu_validation_init_cmd_create`: erases all progress.
  mutating func createCommand(size: Int) -> Result {
    guard size > 0 else { return .failure(.invalidParameter, extended: nil) }
    guard size <= Int(configuration.maximumCommandSize) else { return .failure(.insufficientResources, extended: nil) }
    resetProgress()
    commandSize = size
    return .success(.none)
  }

  /// `on_data_obj_create_request`.
  mutating func createData(size: Int) -> Result {
    guard let initCommand = validInit, commandIsExecuted else { return .failure(.operationNotPermitted, extended: nil) }
    guard size > 0 else { return .failure(.invalidParameter, extended: nil) }
    guard size <= Int(configuration.maximumDataObjectSize) else {
      return .failure(.insufficientResources, extended: nil)
    }
    let total = Self.updateSize(initCommand)
    guard executedOffset + size <= total else { return .failure(.operationNotPermitted, extended: nil) }
    let isLast = executedOffset + size == total
    guard isLast || size % Int(configuration.maximumDataObjectSize) == 0 else {
      return .failure(.invalidParameter, extended: nil)
    }
    image = Array(image.prefix(executedOffset))
    objectEnd = executedOffset + size
    return .success(.none)
  }

  /// `nrf_dfu_validation_init_cmd_execute` + prevalidation (§2.5 step 7).
  mutating func executeCommand() -> Result {
    guard commandSize > 0, command.count == commandSize else { return .failure(.operationNotPermitted, extended: nil) }
    if validInit != nil, commandIsExecuted { return .success(.none) }
    let packet: InitPacket
    do {
      packet = try InitPacket(decoding: command)
    } catch {
      return .failure(.invalidObject, extended: nil)
    }
    if let failure = prevalidate(packet) { return failure }
    validInit = packet.initCommand
    commandIsExecuted = true
    image = []
    executedOffset = 0
    objectEnd = 0
    return .success(.none)
  }

  /// `on_data_obj_execute_request_sched`; the final object triggers post-validation (hash) and a reset.
  mutating func executeData() -> Result {
    guard let initCommand = validInit, objectEnd > 0 else { return .failure(.operationNotPermitted, extended: nil) }
    guard image.count == objectEnd, objectEnd > executedOffset else {
      return .failure(.operationNotPermitted, extended: nil)  // incomplete, or executed before (SDK 15–17 quirk)
    }
    executedOffset = objectEnd
    guard executedOffset == Self.updateSize(initCommand) else { return .success(.none) }
    guard initCommand.hash?.digest == SHA256Digest.initPacketHash(of: image) else {
      resetProgress()
      return .failure(.extendedError, extended: .verificationFailed)
    }
    activate(initCommand)
    return .success(.none)
  }

  mutating func activate(_ initCommand: InitCommand) {
    let type = initCommand.type ?? .unknown
    activated.append((type, image))
    switch type {
    case .application, .externalApplication:
      configuration.applicationVersion = initCommand.firmwareVersion
      pendingReset = true
    case .bootloader, .softDeviceBootloader:
      configuration.bootloaderVersion = initCommand.firmwareVersion ?? configuration.bootloaderVersion
      if type == .softDeviceBootloader { installSoftDevice(initCommand) }
      pendingReset = false
    case .softDevice:
      installSoftDevice(initCommand)
      pendingReset = false
    default:
      pendingReset = false
    }
    resetProgress()
  }

  /// The new SoftDevice's FWID, as the bootloader reads it afterwards: from its information structure
  /// (`SD_FWID_GET`, `SoftDeviceInfo`); an image without one (test data) falls back to the first sd_req
  /// entry, where nrfutil puts `--sd-id` (docs/protocols/nordic-dfu.md §1.3).
  mutating func installSoftDevice(_ initCommand: InitCommand) {
    if let id = SoftDeviceInfo.firmwareID(in: image) ?? initCommand.softDeviceRequirements.first {
      configuration.softDeviceID = id
    }
  }

  /// `update_data_size_get`.
  static func updateSize(_ c: InitCommand) -> Int {
    switch c.type {
    case .application?, .externalApplication?: Int(c.applicationSize ?? 0)
    case .softDevice?: Int(c.softDeviceSize ?? 0)
    case .bootloader?: Int(c.bootloaderSize ?? 0)
    case .softDeviceBootloader?: Int(c.softDeviceSize ?? 0) + Int(c.bootloaderSize ?? 0)
    default: 0
    }
  }
}
