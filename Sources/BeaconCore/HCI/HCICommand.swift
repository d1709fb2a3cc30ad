/// One HCI command packet (Core Vol 4 Part E §5.4.1): opcode, parameter length, parameters. The named
/// constructors in the `LE…Commands` files build the commands beacon-provision sends; `packet` is what is
/// written to a raw HCI socket.
public struct HCICommand: Sendable, Hashable, CustomStringConvertible {
  /// The HCI packet indicator of a command on a socket/UART (Core Vol 4 Part A §2).
  public static let packetIndicator: UInt8 = 0x01

  public var opcode: HCIOpcode
  /// At most 255 octets (the length field is one octet).
  public var parameters: [UInt8]

  public init(_ opcode: HCIOpcode, _ parameters: [UInt8] = []) {
    precondition(parameters.count <= 255, "HCI command parameters are limited to 255 octets")
    self.opcode = opcode
    self.parameters = parameters
  }

  /// Indicator 0x01, opcode (little-endian), length, parameters.
  public var packet: [UInt8] {
    [Self.packetIndicator, UInt8(opcode.rawValue & 0xFF), UInt8(opcode.rawValue >> 8), UInt8(parameters.count)]
      + parameters
  }

  public var description: String { "\(opcode) [\(Hex.encode(parameters))]" }

  /// HCI_Reset (§7.3.2), no parameters.
  public static let reset = HCICommand(.reset)

  /// HCI_Read_Local_Supported_Commands (§7.4.2), no parameters; the reply is `LocalSupportedCommands`.
  public static let readLocalSupportedCommands = HCICommand(.readLocalSupportedCommands)

  /// HCI_LE_Set_Random_Address (§7.8.4): the address, least significant octet first.
  public static func leSetRandomAddress(_ address: BluetoothAddress) -> HCICommand {
    HCICommand(.leSetRandomAddress, address.littleEndianBytes)
  }
}

/// The 64-octet Supported_Commands bit mask returned by HCI_Read_Local_Supported_Commands (Core Vol 4
/// Part E §6.27). Used to choose legacy or extended LE scan/advertising commands (docs/protocols/linux-ble.md §4 item 2:
/// a controller the host drives with extended commands refuses the legacy ones with Command Disallowed).
public struct LocalSupportedCommands: Sendable, Hashable {
  public var mask: [UInt8]

  /// `returnParameters` of the Command Complete: status, then 64 octets.
  public init(returnParameters: [UInt8]) throws {
    var reader = HCIWireReader(returnParameters, context: "Read Local Supported Commands reply")
    _ = try reader.u8()
    mask = try reader.take(64)
  }

  public init(mask: [UInt8]) { self.mask = mask + Array(repeating: 0, count: max(0, 64 - mask.count)) }

  /// Whether bit `bit` of octet `octet` is set.
  public func supports(octet: Int, bit: Int) -> Bool {
    octet < mask.count && mask[octet] & (1 << bit) != 0
  }

  /// LE Set Extended Scan Parameters (octet 37 bit 5) and Enable (octet 37 bit 6) — the same test the
  /// kernel uses before it drives a controller with extended scanning.
  public var supportsExtendedScan: Bool { supports(octet: 37, bit: 5) && supports(octet: 37, bit: 6) }

  /// LE Set Extended Advertising Parameters, Data, Scan Response Data and Enable (octet 36 bits 2–5).
  public var supportsExtendedAdvertising: Bool { (2...5).allSatisfy { supports(octet: 36, bit: $0) } }
}
