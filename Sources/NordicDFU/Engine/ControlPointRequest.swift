/// A Secure DFU request (docs/protocols/nordic-dfu.md §2.3), written to the Control Point on BLE or sent as one SLIP
/// frame on serial (§4). Multi-byte fields are little-endian.
public enum ControlPointRequest: Equatable, Sendable {
  case protocolVersion
  case create(ObjectType, size: UInt32)
  case setReceiptInterval(UInt16)
  case calculateChecksum
  case execute
  case select(ObjectType)
  /// Serial only.
  case getMTU
  /// Serial only: object data (BLE sends it on the Packet characteristic instead).
  case write([UInt8])
  case ping(id: UInt8)
  case hardwareVersion
  case firmwareVersion(image: UInt8)
  case abort

  /// Object types of Create/Select.
  public enum ObjectType: UInt8, Sendable {
    case command = 1
    case data = 2
  }

  /// The opcode byte.
  public var opCode: UInt8 {
    switch self {
    case .protocolVersion: 0x00
    case .create: 0x01
    case .setReceiptInterval: 0x02
    case .calculateChecksum: 0x03
    case .execute: 0x04
    case .select: 0x06
    case .getMTU: 0x07
    case .write: 0x08
    case .ping: 0x09
    case .hardwareVersion: 0x0A
    case .firmwareVersion: 0x0B
    case .abort: 0x0C
    }
  }

  /// The request bytes.
  public var bytes: [UInt8] {
    var out: [UInt8] = [opCode]
    switch self {
    case .create(let type, let size):
      out.append(type.rawValue)
      out += LittleEndian.bytes(size)
    case .setReceiptInterval(let n): out += [UInt8(n & 0xFF), UInt8(n >> 8)]
    case .select(let type): out.append(type.rawValue)
    case .write(let data): out += data
    case .ping(let id): out.append(id)
    case .firmwareVersion(let image): out.append(image)
    case .protocolVersion, .calculateChecksum, .execute, .getMTU, .hardwareVersion, .abort: break
    }
    return out
  }

  /// Parses a request (the target side). Throws `ControlPointError` on an unknown opcode or wrong length.
  public init(bytes: [UInt8]) throws(ControlPointError) {
    guard let op = bytes.first else { throw .empty }
    let body = Array(bytes.dropFirst())
    func need(_ n: Int) throws(ControlPointError) { guard body.count == n else { throw .wrongLength(op: op) } }
    switch op {
    case 0x00:
      try need(0)
      self = .protocolVersion
    case 0x01:
      try need(5)
      guard let type = ObjectType(rawValue: body[0]) else { throw .unknownObjectType(body[0]) }
      self = .create(type, size: LittleEndian.uint32(body, at: 1))
    case 0x02:
      try need(2)
      self = .setReceiptInterval(UInt16(body[0]) | UInt16(body[1]) << 8)
    case 0x03:
      try need(0)
      self = .calculateChecksum
    case 0x04:
      try need(0)
      self = .execute
    case 0x06:
      try need(1)
      guard let type = ObjectType(rawValue: body[0]) else { throw .unknownObjectType(body[0]) }
      self = .select(type)
    case 0x07:
      try need(0)
      self = .getMTU
    case 0x08: self = .write(body)
    case 0x09:
      try need(1)
      self = .ping(id: body[0])
    case 0x0A:
      try need(0)
      self = .hardwareVersion
    case 0x0B:
      try need(1)
      self = .firmwareVersion(image: body[0])
    case 0x0C:
      try need(0)
      self = .abort
    default: throw .unknownOpCode(op)
    }
  }
}

/// Little-endian helpers shared by the codecs.
enum LittleEndian {
  static func bytes(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
  static func bytes(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
  /// Reads 4 bytes at `offset`; callers check the length first.
  static func uint32(_ b: [UInt8], at offset: Int) -> UInt32 {
    (0..<4).reduce(0) { $0 | UInt32(b[offset + $1]) << (8 * UInt32($1)) }
  }
}

/// A malformed control-point message.
public enum ControlPointError: Error, Equatable, Sendable {
  case empty
  case unknownOpCode(UInt8)
  case unknownObjectType(UInt8)
  case wrongLength(op: UInt8)
  case notAResponse(UInt8)
}
