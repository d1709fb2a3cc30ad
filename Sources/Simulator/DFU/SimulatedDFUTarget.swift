import NordicDFU

/// A Nordic Secure DFU bootloader with SDK 15.3 semantics (docs/protocols/nordic-dfu.md §2.3–2.5 target rules, §4),
/// transport-agnostic: it takes control-point requests and data writes and returns outputs. Progress
/// survives link drops (as in the target's RAM); `inactivityElapsed()` returns to a valid application.
public struct SimulatedDFUTarget: Sendable {
  public var configuration: DFUTargetConfiguration
  public var faults: DFUTargetFaults
  /// True while the bootloader is running (false after activating an application).
  public internal(set) var inBootloader = true

  var receiptInterval = 0
  var writesSinceReceipt = 0
  // command object
  var commandSize = 0
  var command: [UInt8] = []
  var validInit: InitCommand?
  // data objects
  var image: [UInt8] = []
  var executedOffset = 0
  var objectEnd = 0
  /// Firmware bytes received this session (drop faults count in these bytes).
  public internal(set) var firmwareBytesReceived = 0
  /// Every firmware image activated so far, in order (type and bytes), for tests to inspect.
  public internal(set) var activated: [(type: FirmwareType, firmware: [UInt8])] = []

  public init(
    configuration: DFUTargetConfiguration = DFUTargetConfiguration(), faults: DFUTargetFaults = DFUTargetFaults()
  ) {
    self.configuration = configuration
    self.faults = faults
  }

  /// Handles one control-point request (on serial: one SLIP frame).
  public mutating func handle(request bytes: [UInt8]) -> [DFUTargetOutput] {
    guard inBootloader else { return [] }
    let request: ControlPointRequest
    do {
      request = try ControlPointRequest(bytes: bytes)
    } catch {
      let op = bytes.first ?? 0
      let code: DFUResultCode = if case .unknownOpCode = error { .opCodeNotSupported } else { .invalidParameter }
      return [.respond(ControlPointResponse(requestOpCode: op, result: .failure(code, extended: nil)).bytes)]
    }
    if case .write(let data) = request { return write(data) }
    if case .abort = request {
      resetProgress()
      if configuration.applicationVersion != nil { inBootloader = false }
      return []
    }
    let result = answer(request)
    var outputs: [DFUTargetOutput] = [
      .respond(ControlPointResponse(requestOpCode: request.opCode, result: result).bytes)
    ]
    if case .execute = request, case .success = result, let runningApplication = pendingReset {
      if faults.dropLinkAtExecute {
        faults.dropLinkAtExecute = false
        outputs = [.dropLink]
      }
      outputs.append(.reset(runningApplication: runningApplication))
      inBootloader = !runningApplication
      pendingReset = nil
    }
    return outputs
  }

  /// Handles object data (BLE Packet characteristic; serial op 0x08). Writes have no response except a
  /// PRN receipt; a write past the object is ignored (the SDK answers 0x03 only if a response is due).
  public mutating func write(_ data: [UInt8]) -> [DFUTargetOutput] {
    guard inBootloader else { return [] }
    var bytes = data
    var outputs: [DFUTargetOutput] = []
    if currentType == .data {
      guard validInit != nil else { return [] }
      let start = firmwareBytesReceived
      if let corrupt = faults.corruptByteAt, corrupt >= start, corrupt < start + bytes.count {
        bytes[corrupt - start] ^= 0x01
        faults.corruptByteAt = nil
      }
      if let drop = faults.dropLinkAtByte, drop < start + bytes.count {
        bytes = Array(bytes.prefix(max(0, drop - start)))
        faults.dropLinkAtByte = nil
        outputs.append(.dropLink)
      }
      firmwareBytesReceived += bytes.count
      guard image.count + bytes.count <= objectEnd else { return outputs }
      image += bytes
    } else {
      guard command.count + bytes.count <= commandSize else { return [] }
      if let drop = faults.dropLinkAtInitByte, drop < command.count + bytes.count {
        command += bytes.prefix(max(0, drop - command.count))
        faults.dropLinkAtInitByte = nil
        return [.dropLink]
      }
      command += bytes
    }
    if outputs.contains(.dropLink) { return outputs }
    if receiptInterval > 0 {
      writesSinceReceipt += 1
      if writesSinceReceipt >= receiptInterval {
        writesSinceReceipt = 0
        outputs.append(.respond(ControlPointResponse(requestOpCode: 0x03, result: .success(checksumPayload)).bytes))
      }
    }
    return outputs
  }

  /// The inactivity timeout fired (§2.6): back to a valid application, if there is one; progress is lost.
  public mutating func inactivityElapsed() {
    guard inBootloader, configuration.applicationVersion != nil else { return }
    resetProgress()
    inBootloader = false
  }

  /// Enters the bootloader again (buttonless jump / reset with the DFU button held).
  public mutating func enterBootloader() { inBootloader = true }

  var commandIsExecuted = false
  var currentType: ControlPointRequest.ObjectType = .command
  var pendingReset: Bool?

  var checksumPayload: ControlPointResponse.Payload {
    if currentType == .data {
      return .checksum(offset: UInt32(image.count), crc: CRC32.checksum(image))
    }
    return .checksum(offset: UInt32(command.count), crc: CRC32.checksum(command))
  }

  mutating func resetProgress() {
    command = []
    commandSize = 0
    validInit = nil
    commandIsExecuted = false
    image = []
    executedOffset = 0
    objectEnd = 0
  }
}
