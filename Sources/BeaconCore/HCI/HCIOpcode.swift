/// A 16-bit HCI command opcode: a 6-bit OGF and a 10-bit OCF (Core Vol 4 Part E §5.4.1). Only the commands
/// beacon-provision sends are named; any other value still round-trips.
public struct HCIOpcode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
  public let rawValue: UInt16

  public init(rawValue: UInt16) { self.rawValue = rawValue }

  public init(ogf: UInt8, ocf: UInt16) { rawValue = UInt16(ogf & 0x3F) << 10 | (ocf & 0x03FF) }

  public var ogf: UInt8 { UInt8(rawValue >> 10) }
  public var ocf: UInt16 { rawValue & 0x03FF }

  // Controller & Baseband (OGF 0x03), Informational (0x04), LE Controller (0x08); Core Vol 4 Part E §7.
  public static let reset = HCIOpcode(ogf: 0x03, ocf: 0x0003)
  public static let readLocalSupportedCommands = HCIOpcode(ogf: 0x04, ocf: 0x0002)
  public static let leSetRandomAddress = HCIOpcode(ogf: 0x08, ocf: 0x0005)
  public static let leSetAdvertisingParameters = HCIOpcode(ogf: 0x08, ocf: 0x0006)
  public static let leSetAdvertisingData = HCIOpcode(ogf: 0x08, ocf: 0x0008)
  public static let leSetScanResponseData = HCIOpcode(ogf: 0x08, ocf: 0x0009)
  public static let leSetAdvertisingEnable = HCIOpcode(ogf: 0x08, ocf: 0x000A)
  public static let leSetScanParameters = HCIOpcode(ogf: 0x08, ocf: 0x000B)
  public static let leSetScanEnable = HCIOpcode(ogf: 0x08, ocf: 0x000C)
  public static let leSetAdvertisingSetRandomAddress = HCIOpcode(ogf: 0x08, ocf: 0x0035)
  public static let leSetExtendedAdvertisingParameters = HCIOpcode(ogf: 0x08, ocf: 0x0036)
  public static let leSetExtendedAdvertisingData = HCIOpcode(ogf: 0x08, ocf: 0x0037)
  public static let leSetExtendedScanResponseData = HCIOpcode(ogf: 0x08, ocf: 0x0038)
  public static let leSetExtendedAdvertisingEnable = HCIOpcode(ogf: 0x08, ocf: 0x0039)
  public static let leSetExtendedScanParameters = HCIOpcode(ogf: 0x08, ocf: 0x0041)
  public static let leSetExtendedScanEnable = HCIOpcode(ogf: 0x08, ocf: 0x0042)

  static let names: [HCIOpcode: String] = [
    .reset: "Reset", .readLocalSupportedCommands: "Read Local Supported Commands",
    .leSetRandomAddress: "LE Set Random Address",
    .leSetAdvertisingParameters: "LE Set Advertising Parameters",
    .leSetAdvertisingData: "LE Set Advertising Data", .leSetScanResponseData: "LE Set Scan Response Data",
    .leSetAdvertisingEnable: "LE Set Advertising Enable", .leSetScanParameters: "LE Set Scan Parameters",
    .leSetScanEnable: "LE Set Scan Enable",
    .leSetAdvertisingSetRandomAddress: "LE Set Advertising Set Random Address",
    .leSetExtendedAdvertisingParameters: "LE Set Extended Advertising Parameters",
    .leSetExtendedAdvertisingData: "LE Set Extended Advertising Data",
    .leSetExtendedScanResponseData: "LE Set Extended Scan Response Data",
    .leSetExtendedAdvertisingEnable: "LE Set Extended Advertising Enable",
    .leSetExtendedScanParameters: "LE Set Extended Scan Parameters",
    .leSetExtendedScanEnable: "LE Set Extended Scan Enable",
  ]

  /// The command's name from the Core spec, or `opcode 0xXXXX`.
  public var description: String {
    Self.names[self] ?? "opcode 0x\(hexByte(UInt8(rawValue >> 8)))\(hexByte(UInt8(rawValue & 0xFF)))"
  }
}

/// An HCI error code (Core Vol 1 Part F §1.3) as carried in Command Complete/Status and connection events.
public struct HCIStatus: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  public static let success = HCIStatus(rawValue: 0x00)
  public static let unknownCommand = HCIStatus(rawValue: 0x01)
  public static let unknownConnection = HCIStatus(rawValue: 0x02)
  public static let hardwareFailure = HCIStatus(rawValue: 0x03)
  public static let authenticationFailure = HCIStatus(rawValue: 0x05)
  public static let memoryCapacityExceeded = HCIStatus(rawValue: 0x07)
  public static let connectionTimeout = HCIStatus(rawValue: 0x08)
  public static let connectionLimitExceeded = HCIStatus(rawValue: 0x09)
  public static let commandDisallowed = HCIStatus(rawValue: 0x0C)
  public static let unsupportedFeature = HCIStatus(rawValue: 0x11)
  public static let invalidParameters = HCIStatus(rawValue: 0x12)
  public static let remoteUserTerminated = HCIStatus(rawValue: 0x13)
  public static let localHostTerminated = HCIStatus(rawValue: 0x16)
  public static let controllerBusy = HCIStatus(rawValue: 0x3A)
  public static let advertisingTimeout = HCIStatus(rawValue: 0x3C)
  public static let connectionFailedToEstablish = HCIStatus(rawValue: 0x3E)
  public static let unknownAdvertisingIdentifier = HCIStatus(rawValue: 0x42)
  public static let limitReached = HCIStatus(rawValue: 0x43)

  static let names: [UInt8: String] = [
    0x00: "Success", 0x01: "Unknown HCI Command", 0x02: "Unknown Connection Identifier",
    0x03: "Hardware Failure", 0x05: "Authentication Failure", 0x07: "Memory Capacity Exceeded",
    0x08: "Connection Timeout", 0x09: "Connection Limit Exceeded", 0x0C: "Command Disallowed",
    0x11: "Unsupported Feature or Parameter Value", 0x12: "Invalid HCI Command Parameters",
    0x13: "Remote User Terminated Connection", 0x16: "Connection Terminated By Local Host",
    0x3A: "Controller Busy", 0x3C: "Advertising Timeout", 0x3E: "Connection Failed to be Established",
    0x42: "Unknown Advertising Identifier", 0x43: "Limit Reached",
  ]

  /// `Command Disallowed (0x0C)`.
  public var description: String {
    "\(Self.names[rawValue] ?? "HCI error") (0x\(hexByte(rawValue)))"
  }
}
