/// A command on the kernel's Bluetooth management channel (HCI_CHANNEL_CONTROL), as specified in BlueZ
/// `doc/mgmt-api.txt`: a 6-octet header (command code, controller index, parameter length, all
/// little-endian) then the parameters. The kernel header is not installed by libbluetooth-dev, so the
/// protocol is defined here.
public struct MgmtCommand: Sendable, Hashable, CustomStringConvertible {
  /// The controller index meaning "not about one controller" (`<non-controller>`).
  public static let nonController: UInt16 = 0xFFFF

  public var opcode: MgmtOpcode
  public var index: UInt16
  public var parameters: [UInt8]

  public init(_ opcode: MgmtOpcode, index: UInt16, _ parameters: [UInt8] = []) {
    self.opcode = opcode
    self.index = index
    self.parameters = parameters
  }

  /// Header then parameters, as written to the control socket.
  public var packet: [UInt8] {
    le16(opcode.rawValue) + le16(index) + le16(UInt16(parameters.count)) + parameters
  }

  public var description: String { "\(opcode) index \(index) [\(Hex.encode(parameters))]" }

  /// Read Controller Index List (0x0003), on no controller. Reply: `MgmtControllerIndexList`.
  public static let readControllerIndexList = MgmtCommand(.readControllerIndexList, index: nonController)

  /// Read Controller Information (0x0004). Reply: `MgmtControllerInfo`.
  public static func readControllerInfo(index: UInt16) -> MgmtCommand {
    MgmtCommand(.readControllerInfo, index: index)
  }

  /// Set Powered (0x0005): 0x00 or 0x01. Reply: Current_Settings.
  public static func setPowered(_ on: Bool, index: UInt16) -> MgmtCommand {
    MgmtCommand(.setPowered, index: index, [on ? 0x01 : 0x00])
  }

  /// Set Low Energy (0x000D): 0x00 or 0x01. Reply: Current_Settings.
  public static func setLowEnergy(_ on: Bool, index: UInt16) -> MgmtCommand {
    MgmtCommand(.setLowEnergy, index: index, [on ? 0x01 : 0x00])
  }

  /// Disconnect (0x0014): the peer's address (least significant octet first) and address type (1 LE
  /// public, 2 LE random — `AddressType`'s raw values). The kernel answers once the link is down; Not
  /// Connected when there was none. Reply: the address and type.
  public static func disconnect(_ address: BluetoothAddress, type: AddressType, index: UInt16) -> MgmtCommand {
    MgmtCommand(.disconnect, index: index, address.littleEndianBytes + [type.rawValue])
  }

  /// Start Discovery (0x0023) with an address-type bit mask (`MgmtDiscoveryTypes`). Reply: the mask.
  public static func startDiscovery(_ types: MgmtDiscoveryTypes = .le, index: UInt16) -> MgmtCommand {
    MgmtCommand(.startDiscovery, index: index, [types.rawValue])
  }

  /// Stop Discovery (0x0024) with the mask given to Start Discovery.
  public static func stopDiscovery(_ types: MgmtDiscoveryTypes = .le, index: UInt16) -> MgmtCommand {
    MgmtCommand(.stopDiscovery, index: index, [types.rawValue])
  }

  /// Add Advertising (0x003E): instance (1…), flags, duration 0, timeout 0 (until removed), the data
  /// lengths, then the advertising and scan response data. Flag bit 0 makes the instance connectable.
  /// Reply: the instance.
  public static func addAdvertising(
    instance: UInt8, connectable: Bool, advertisingData: [UInt8], scanResponseData: [UInt8], index: UInt16
  ) -> MgmtCommand {
    let flags: UInt32 = connectable ? 0x0000_0001 : 0
    let params =
      [instance] + le16(UInt16(flags & 0xFFFF)) + le16(UInt16(flags >> 16)) + le16(0) + le16(0)
      + [UInt8(advertisingData.count), UInt8(scanResponseData.count)] + advertisingData + scanResponseData
    return MgmtCommand(.addAdvertising, index: index, params)
  }

  /// Remove Advertising (0x003F): instance, 0 for all.
  public static func removeAdvertising(instance: UInt8, index: UInt16) -> MgmtCommand {
    MgmtCommand(.removeAdvertising, index: index, [instance])
  }
}

/// Address types of Start/Stop Discovery (`doc/mgmt-api.txt`, Start Discovery): bit 0 BR/EDR, bit 1 LE
/// public, bit 2 LE random.
public struct MgmtDiscoveryTypes: OptionSet, Sendable, Hashable {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  public static let bredr = MgmtDiscoveryTypes(rawValue: 1 << 0)
  public static let lePublic = MgmtDiscoveryTypes(rawValue: 1 << 1)
  public static let leRandom = MgmtDiscoveryTypes(rawValue: 1 << 2)
  /// 0x06: LE, public and random.
  public static let le: MgmtDiscoveryTypes = [.lePublic, .leRandom]
}

/// Command codes used by beacon-provision (`doc/mgmt-api.txt`).
public struct MgmtOpcode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
  public let rawValue: UInt16
  public init(rawValue: UInt16) { self.rawValue = rawValue }

  public static let readControllerIndexList = MgmtOpcode(rawValue: 0x0003)
  public static let readControllerInfo = MgmtOpcode(rawValue: 0x0004)
  public static let setPowered = MgmtOpcode(rawValue: 0x0005)
  public static let setLowEnergy = MgmtOpcode(rawValue: 0x000D)
  public static let disconnect = MgmtOpcode(rawValue: 0x0014)
  public static let startDiscovery = MgmtOpcode(rawValue: 0x0023)
  public static let stopDiscovery = MgmtOpcode(rawValue: 0x0024)
  public static let addAdvertising = MgmtOpcode(rawValue: 0x003E)
  public static let removeAdvertising = MgmtOpcode(rawValue: 0x003F)

  static let names: [UInt16: String] = [
    0x0003: "Read Controller Index List", 0x0004: "Read Controller Information", 0x0005: "Set Powered",
    0x000D: "Set Low Energy", 0x0014: "Disconnect", 0x0023: "Start Discovery", 0x0024: "Stop Discovery",
    0x003E: "Add Advertising", 0x003F: "Remove Advertising",
  ]

  public var description: String {
    Self.names[rawValue] ?? "mgmt command 0x\(hexByte(UInt8(rawValue >> 8)))\(hexByte(UInt8(rawValue & 0xFF)))"
  }
}
