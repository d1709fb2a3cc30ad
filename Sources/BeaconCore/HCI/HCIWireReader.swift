/// `ByteReader` over one HCI or mgmt packet: little-endian (Core Vol 4 Part E §5.4; BlueZ `doc/mgmt-api.txt`),
/// a short read throws `HCIDecodingError.truncated` naming what was being decoded (`LE Advertising Report`,
/// `Device Found`).
typealias HCIWireReader = ByteReader<HCIDecodingError>

extension ByteReader where Failure == HCIDecodingError {
  init(_ bytes: some Collection<UInt8>, context: String) {
    let count = bytes.count
    self.init(bytes, order: .littleEndian) { needed, offset, _ in
      .truncated(context, needed: offset + needed, got: count)
    }
  }

  mutating func i8() throws(HCIDecodingError) -> Int8 { Int8(bitPattern: try u8()) }

  /// A `bdaddr_t`: six octets, least significant first.
  mutating func address() throws(HCIDecodingError) -> BluetoothAddress {
    // Six bytes always form an address; the force is on a checked count.
    BluetoothAddress(littleEndianBytes: try take(6))!
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
