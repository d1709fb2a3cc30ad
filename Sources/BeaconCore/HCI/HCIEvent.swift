/// An HCI event packet (Core Vol 4 Part E §5.4.4) decoded into the events beacon-provision acts on; every
/// other event is kept raw in `.other`/`.leOther` so the reader never fails on an event it does not use.
public enum HCIEvent: Sendable, Hashable {
  /// The packet indicator of an event on a socket/UART (Core Vol 4 Part A §2).
  public static let packetIndicator: UInt8 = 0x04

  case commandComplete(CommandComplete)
  case commandStatus(CommandStatus)
  case disconnectionComplete(DisconnectionComplete)
  /// LE Advertising Report (LE Meta subevent 0x02), all reports of the event in order.
  case leAdvertisingReports([LEAdvertisingReport])
  /// LE Extended Advertising Report (subevent 0x0D).
  case leExtendedAdvertisingReports([LEExtendedAdvertisingReport])
  /// LE Connection Complete (0x01) or LE Enhanced Connection Complete (0x0A).
  case leConnectionComplete(LEConnectionComplete)
  case leOther(subevent: UInt8, parameters: [UInt8])
  case other(code: UInt8, parameters: [UInt8])

  /// Event codes (§7.7).
  public static let disconnectionCompleteCode: UInt8 = 0x05
  public static let commandCompleteCode: UInt8 = 0x0E
  public static let commandStatusCode: UInt8 = 0x0F
  public static let leMetaCode: UInt8 = 0x3E

  /// Decodes a packet as read from a raw HCI socket: indicator 0x04, event code, length, parameters.
  public init(packet: [UInt8]) throws {
    guard let indicator = packet.first else {
      throw HCIDecodingError.truncated("HCI event packet", needed: 1, got: 0)
    }
    guard indicator == Self.packetIndicator else { throw HCIDecodingError.unexpectedPacketType(indicator) }
    var reader = HCIWireReader(packet.dropFirst(), context: "HCI event header")
    let code = try reader.u8()
    let length = Int(try reader.u8())
    guard reader.remaining == length else {
      throw HCIDecodingError.lengthMismatch("HCI event 0x\(hexByte(code))", declared: length, actual: reader.remaining)
    }
    try self.init(code: code, parameters: reader.rest())
  }

  /// Decodes the parameters of event `code`.
  public init(code: UInt8, parameters: [UInt8]) throws {
    switch code {
    case Self.commandCompleteCode: self = .commandComplete(try CommandComplete(parameters))
    case Self.commandStatusCode: self = .commandStatus(try CommandStatus(parameters))
    case Self.disconnectionCompleteCode: self = .disconnectionComplete(try DisconnectionComplete(parameters))
    case Self.leMetaCode:
      var reader = HCIWireReader(parameters, context: "LE Meta event")
      let subevent = try reader.u8()
      let body = reader.rest()
      switch subevent {
      case 0x01: self = .leConnectionComplete(try LEConnectionComplete(legacy: body))
      case 0x02: self = .leAdvertisingReports(try LEAdvertisingReport.decodeAll(body))
      case 0x0A: self = .leConnectionComplete(try LEConnectionComplete(enhanced: body))
      case 0x0D: self = .leExtendedAdvertisingReports(try LEExtendedAdvertisingReport.decodeAll(body))
      default: self = .leOther(subevent: subevent, parameters: body)
      }
    default: self = .other(code: code, parameters: parameters)
    }
  }
}

/// HCI_Command_Complete (§7.7.14): the controller finished a command; `returnParameters` start with the
/// status for every command beacon-provision sends.
public struct CommandComplete: Sendable, Hashable {
  public var allowedCommandPackets: UInt8
  public var opcode: HCIOpcode
  public var returnParameters: [UInt8]

  public init(_ parameters: [UInt8]) throws {
    var reader = HCIWireReader(parameters, context: "Command Complete")
    allowedCommandPackets = try reader.u8()
    opcode = HCIOpcode(rawValue: try reader.u16())
    returnParameters = reader.rest()
  }

  /// The first return parameter; nil when there is none (a bare flow-control event, opcode 0).
  public var status: HCIStatus? { returnParameters.first.map(HCIStatus.init(rawValue:)) }
}

/// HCI_Command_Status (§7.7.15): the controller accepted (status 0) or refused a command that completes
/// later with its own event.
public struct CommandStatus: Sendable, Hashable {
  public var status: HCIStatus
  public var allowedCommandPackets: UInt8
  public var opcode: HCIOpcode

  public init(_ parameters: [UInt8]) throws {
    var reader = HCIWireReader(parameters, context: "Command Status")
    status = HCIStatus(rawValue: try reader.u8())
    allowedCommandPackets = try reader.u8()
    opcode = HCIOpcode(rawValue: try reader.u16())
  }
}

/// HCI_Disconnection_Complete (§7.7.5): status, connection handle (12 bits), reason.
public struct DisconnectionComplete: Sendable, Hashable {
  public var status: HCIStatus
  public var handle: UInt16
  public var reason: HCIStatus

  public init(_ parameters: [UInt8]) throws {
    var reader = HCIWireReader(parameters, context: "Disconnection Complete")
    status = HCIStatus(rawValue: try reader.u8())
    handle = try reader.u16() & 0x0FFF
    reason = HCIStatus(rawValue: try reader.u8())
  }
}

/// HCI_LE_Connection_Complete (§7.7.65.1) and HCI_LE_Enhanced_Connection_Complete (§7.7.65.10), reduced to
/// what a central needs: who, which handle, with which parameters.
public struct LEConnectionComplete: Sendable, Hashable {
  public var status: HCIStatus
  public var handle: UInt16
  /// 0 central, 1 peripheral.
  public var role: UInt8
  /// 0 public, 1 random, 2/3 resolved identity (public/random).
  public var peerAddressType: UInt8
  public var peer: BluetoothAddress
  /// Units of 1.25 ms.
  public var interval: UInt16
  public var latency: UInt16
  /// Supervision timeout, units of 10 ms.
  public var supervisionTimeout: UInt16

  /// Status, handle, role, peer address type, peer address, interval, latency, timeout, clock accuracy.
  public init(legacy parameters: [UInt8]) throws {
    var reader = HCIWireReader(parameters, context: "LE Connection Complete")
    try self.init(reader: &reader, skippingPrivateAddresses: false)
  }

  /// As the legacy event with the local and peer resolvable private addresses (6 octets each) between the
  /// peer address and the interval.
  public init(enhanced parameters: [UInt8]) throws {
    var reader = HCIWireReader(parameters, context: "LE Enhanced Connection Complete")
    try self.init(reader: &reader, skippingPrivateAddresses: true)
  }

  private init(reader: inout HCIWireReader, skippingPrivateAddresses: Bool) throws {
    status = HCIStatus(rawValue: try reader.u8())
    handle = try reader.u16() & 0x0FFF
    role = try reader.u8()
    peerAddressType = try reader.u8()
    peer = try reader.address()
    if skippingPrivateAddresses { _ = try reader.take(12) }
    interval = try reader.u16()
    latency = try reader.u16()
    supervisionTimeout = try reader.u16()
    _ = try reader.u8()  // Central_Clock_Accuracy
  }
}
