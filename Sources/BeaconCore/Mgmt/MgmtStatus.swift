/// A status of a mgmt Command Complete / Command Status event (`doc/mgmt-api.txt`, Error Codes).
public struct MgmtStatus: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  public static let success = MgmtStatus(rawValue: 0x00)
  public static let unknownCommand = MgmtStatus(rawValue: 0x01)
  public static let notConnected = MgmtStatus(rawValue: 0x02)
  public static let failed = MgmtStatus(rawValue: 0x03)
  public static let connectFailed = MgmtStatus(rawValue: 0x04)
  public static let authenticationFailed = MgmtStatus(rawValue: 0x05)
  public static let notPaired = MgmtStatus(rawValue: 0x06)
  public static let noResources = MgmtStatus(rawValue: 0x07)
  public static let timeout = MgmtStatus(rawValue: 0x08)
  public static let alreadyConnected = MgmtStatus(rawValue: 0x09)
  public static let busy = MgmtStatus(rawValue: 0x0A)
  public static let rejected = MgmtStatus(rawValue: 0x0B)
  public static let notSupported = MgmtStatus(rawValue: 0x0C)
  public static let invalidParameters = MgmtStatus(rawValue: 0x0D)
  public static let disconnected = MgmtStatus(rawValue: 0x0E)
  public static let notPowered = MgmtStatus(rawValue: 0x0F)
  public static let cancelled = MgmtStatus(rawValue: 0x10)
  public static let invalidIndex = MgmtStatus(rawValue: 0x11)
  public static let rfKilled = MgmtStatus(rawValue: 0x12)
  public static let alreadyPaired = MgmtStatus(rawValue: 0x13)
  public static let permissionDenied = MgmtStatus(rawValue: 0x14)

  static let names = [
    "Success", "Unknown Command", "Not Connected", "Failed", "Connect Failed", "Authentication Failed",
    "Not Paired", "No Resources", "Timeout", "Already Connected", "Busy", "Rejected", "Not Supported",
    "Invalid Parameters", "Disconnected", "Not Powered", "Cancelled", "Invalid Index", "RFKilled",
    "Already Paired", "Permission Denied",
  ]

  /// `Busy (0x0A)`.
  public var description: String {
    let name = Int(rawValue) < Self.names.count ? Self.names[Int(rawValue)] : "mgmt error"
    return "\(name) (0x\(hexByte(rawValue)))"
  }
}

/// The controller settings bit mask of Read Controller Information, Set Powered, Set LE and New Settings
/// (`doc/mgmt-api.txt`, Read Controller Information).
public struct MgmtSettings: OptionSet, Sendable, Hashable {
  public let rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }

  public static let powered = MgmtSettings(rawValue: 1 << 0)
  public static let connectable = MgmtSettings(rawValue: 1 << 1)
  public static let discoverable = MgmtSettings(rawValue: 1 << 3)
  public static let bredr = MgmtSettings(rawValue: 1 << 7)
  public static let lowEnergy = MgmtSettings(rawValue: 1 << 9)
  public static let advertising = MgmtSettings(rawValue: 1 << 10)
  public static let privacy = MgmtSettings(rawValue: 1 << 13)
  public static let staticAddress = MgmtSettings(rawValue: 1 << 15)
}
