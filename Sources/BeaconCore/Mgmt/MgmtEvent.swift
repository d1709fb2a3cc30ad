/// An event read from the kernel's management channel (`doc/mgmt-api.txt`): a 6-octet header (event code,
/// controller index, parameter length) then the parameters. Events beacon-provision does not act on are
/// kept raw in `.other`.
public struct MgmtEvent: Sendable, Hashable {
  public enum Payload: Sendable, Hashable {
    /// Command Complete (0x0001): opcode, status, return parameters.
    case commandComplete(opcode: MgmtOpcode, status: MgmtStatus, returnParameters: [UInt8])
    /// Command Status (0x0002): opcode, status. A failure status ends the command.
    case commandStatus(opcode: MgmtOpcode, status: MgmtStatus)
    /// Index Added (0x0004) / Index Removed (0x0005): no parameters.
    case indexAdded
    case indexRemoved
    /// New Settings (0x0006): Current_Settings.
    case newSettings(MgmtSettings)
    /// Device Found (0x0012).
    case deviceFound(MgmtDeviceFound)
    /// Discovering (0x0013): address types, whether discovery is now running.
    case discovering(types: MgmtDiscoveryTypes, active: Bool)
    case other(code: UInt16, parameters: [UInt8])
  }

  /// The controller the event is about, or `MgmtCommand.nonController`.
  public var index: UInt16
  public var payload: Payload

  public init(index: UInt16, payload: Payload) {
    self.index = index
    self.payload = payload
  }

  /// Decodes one packet as read from the control socket.
  public init(packet: [UInt8]) throws {
    var header = HCIWireReader(packet, context: "mgmt event header")
    let code = try header.u16()
    index = try header.u16()
    let length = Int(try header.u16())
    guard header.remaining == length else {
      throw HCIDecodingError.lengthMismatch(
        "mgmt event 0x\(hexByte(UInt8(code & 0xFF)))", declared: length, actual: header.remaining)
    }
    let parameters = header.rest()
    var reader = HCIWireReader(parameters, context: "mgmt event 0x\(hexByte(UInt8(code & 0xFF)))")
    switch code {
    case 0x0001:
      let opcode = MgmtOpcode(rawValue: try reader.u16())
      let status = MgmtStatus(rawValue: try reader.u8())
      payload = .commandComplete(opcode: opcode, status: status, returnParameters: reader.rest())
    case 0x0002:
      let opcode = MgmtOpcode(rawValue: try reader.u16())
      payload = .commandStatus(opcode: opcode, status: MgmtStatus(rawValue: try reader.u8()))
    case 0x0004: payload = .indexAdded
    case 0x0005: payload = .indexRemoved
    case 0x0006: payload = .newSettings(MgmtSettings(rawValue: try reader.u32()))
    case 0x0012: payload = .deviceFound(try MgmtDeviceFound(parameters))
    case 0x0013:
      let types = MgmtDiscoveryTypes(rawValue: try reader.u8())
      payload = .discovering(types: types, active: try reader.u8() != 0)
    default: payload = .other(code: code, parameters: parameters)
    }
  }
}

/// Device Found (`doc/mgmt-api.txt`, event 0x0012): address, address type (0 BR/EDR, 1 LE public, 2 LE
/// random), RSSI, flags, EIR data. For LE the "EIR" data are the AD structures; during active discovery
/// the kernel appends the scan response's AD structures to the advertisement's in one event.
public struct MgmtDeviceFound: Sendable, Hashable {
  /// Flags bit 0 Confirm Name, 1 Legacy Pairing, 2 Not Connectable, 4 Name Request Failed.
  public struct Flags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let confirmName = Flags(rawValue: 1 << 0)
    public static let legacyPairing = Flags(rawValue: 1 << 1)
    public static let notConnectable = Flags(rawValue: 1 << 2)
    public static let nameRequestFailed = Flags(rawValue: 1 << 4)
  }

  public var address: BluetoothAddress
  public var addressType: UInt8
  public var rssi: Int8
  public var flags: Flags
  public var data: [UInt8]

  public init(_ parameters: [UInt8]) throws {
    var reader = HCIWireReader(parameters, context: "Device Found")
    address = try reader.address()
    addressType = try reader.u8()
    rssi = try reader.i8()
    flags = Flags(rawValue: try reader.u32())
    let length = Int(try reader.u16())
    data = try reader.take(length)
  }

  /// The scanner-neutral report: nil for BR/EDR devices (address type 0). The kernel does not pass the PDU
  /// type on, so the kind is `.nonConnectable` when the Not Connectable flag is set and `.connectable`
  /// otherwise [I: scannable-only ADV_SCAN_IND advertisers therefore appear as not connectable].
  public func advertisingReport(at timestamp: ContinuousClock.Instant) -> AdvertisingReport? {
    guard addressType == 1 || addressType == 2 else { return nil }
    return AdvertisingReport(
      address: address, addressType: addressType == 1 ? .public : .random,
      kind: flags.contains(.notConnectable) ? .nonConnectable : .connectable, rssi: rssi, data: data,
      timestamp: timestamp)
  }
}
