/// A bounds-checked little-endian cursor over one HCI or mgmt packet. Every read either returns a value
/// or throws `HCIDecodingError.truncated`, so a short or lying length field can never read out of bounds.
/// Shared by the HCI (Core Vol 4 Part E §5.4) and mgmt (BlueZ `doc/mgmt-api.txt`) decoders, which both
/// carry multi-octet fields least significant octet first.
struct HCIWireReader {
  private let bytes: [UInt8]
  private(set) var offset: Int
  /// What is being decoded, for the error message (`LE Advertising Report`, `Device Found`).
  let context: String

  init(_ bytes: some Collection<UInt8>, context: String) {
    self.bytes = Array(bytes)
    self.offset = 0
    self.context = context
  }

  var remaining: Int { bytes.count - offset }

  mutating func u8() throws -> UInt8 {
    try need(1)
    defer { offset += 1 }
    return bytes[offset]
  }

  mutating func i8() throws -> Int8 { Int8(bitPattern: try u8()) }

  mutating func u16() throws -> UInt16 {
    let b = try take(2)
    return UInt16(b[0]) | UInt16(b[1]) << 8
  }

  mutating func u32() throws -> UInt32 {
    let b = try take(4)
    return b.reversed().reduce(0) { $0 << 8 | UInt32($1) }
  }

  /// A `bdaddr_t`: six octets, least significant first.
  mutating func address() throws -> BluetoothAddress {
    // Six bytes always form an address; the force is on a checked count.
    BluetoothAddress(littleEndianBytes: try take(6))!
  }

  mutating func take(_ count: Int) throws -> [UInt8] {
    try need(count)
    defer { offset += count }
    return Array(bytes[offset..<offset + count])
  }

  mutating func rest() -> [UInt8] {
    defer { offset = bytes.count }
    return Array(bytes[offset...])
  }

  private func need(_ count: Int) throws {
    guard count >= 0, remaining >= count else {
      throw HCIDecodingError.truncated(context, needed: offset + count, got: bytes.count)
    }
  }
}

/// Why an HCI or mgmt packet could not be decoded. Malformed input from the kernel or a controller ends up
/// here, never in a crash.
public enum HCIDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The packet ended before a field it announced: `needed` octets were required, `got` were present.
  case truncated(String, needed: Int, got: Int)
  /// The first octet of a socket packet was not the expected HCI packet indicator (Core Vol 4 Part A §2).
  case unexpectedPacketType(UInt8)
  /// A header's length field disagrees with the number of octets that followed it.
  case lengthMismatch(String, declared: Int, actual: Int)

  public var description: String {
    switch self {
    case .truncated(let what, let needed, let got):
      "malformed \(what): needs at least \(needed) octets, got \(got)"
    case .unexpectedPacketType(let type):
      "unexpected HCI packet type 0x\(hexByte(type)) (expected an event, 0x04)"
    case .lengthMismatch(let what, let declared, let actual):
      "malformed \(what): header says \(declared) parameter octets, \(actual) present"
    }
  }
}
