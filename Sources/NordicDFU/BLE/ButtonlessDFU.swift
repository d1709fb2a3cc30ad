/// The buttonless DFU characteristic of an application (docs/protocols/nordic-dfu.md §2.2; 8EC90003, no bond sharing):
/// `01` enters the bootloader, `02 <len> <name>` sets the name the bootloader will advertise (≤ 20 bytes);
/// answers arrive as indications `20 <request op> <status>`.
public enum ButtonlessRequest: Equatable, Sendable {
  case enterBootloader
  case setAdvertisingName(String)

  /// Longest name the bootloader stores (`nrf_dfu_adv_name_t`).
  public static let maximumNameLength = 20

  public var opCode: UInt8 {
    switch self {
    case .enterBootloader: 0x01
    case .setAdvertisingName: 0x02
    }
  }

  public var bytes: [UInt8] {
    switch self {
    case .enterBootloader: return [0x01]
    case .setAdvertisingName(let name):
      let utf8 = Array(name.utf8.prefix(Self.maximumNameLength))
      return [0x02, UInt8(utf8.count)] + utf8
    }
  }

  /// Parses a request (the simulated application's side).
  public init(bytes: [UInt8]) throws(ControlPointError) {
    switch bytes.first {
    case 0x01?:
      guard bytes.count == 1 else { throw .wrongLength(op: 0x01) }
      self = .enterBootloader
    case 0x02?:
      guard bytes.count >= 2, Int(bytes[1]) == bytes.count - 2, bytes[1] <= UInt8(Self.maximumNameLength) else {
        throw .wrongLength(op: 0x02)
      }
      self = .setAdvertisingName(String(decoding: bytes[2...], as: UTF8.self))
    case let op?: throw .unknownOpCode(op)
    case nil: throw .empty
    }
  }
}

/// A buttonless response `20 <op> <status>`.
public struct ButtonlessResponse: Equatable, Sendable {
  public enum Status: UInt8, Sendable {
    case success = 0x01
    case opCodeNotSupported = 0x02
    case operationFailed = 0x04
    case invalidAdvertisingName = 0x05
    case busy = 0x06
    case notBonded = 0x07
  }

  public var requestOpCode: UInt8
  public var status: Status?
  public var rawStatus: UInt8

  public init(requestOpCode: UInt8, status: Status) {
    self.requestOpCode = requestOpCode
    self.status = status
    self.rawStatus = status.rawValue
  }

  public init(bytes: [UInt8]) throws(ControlPointError) {
    guard bytes.count == 3 else { throw bytes.isEmpty ? .empty : .wrongLength(op: bytes.count > 1 ? bytes[1] : 0) }
    guard bytes[0] == 0x20 else { throw .notAResponse(bytes[0]) }
    requestOpCode = bytes[1]
    rawStatus = bytes[2]
    status = Status(rawValue: bytes[2])
  }

  public var bytes: [UInt8] { [0x20, requestOpCode, rawStatus] }
}
