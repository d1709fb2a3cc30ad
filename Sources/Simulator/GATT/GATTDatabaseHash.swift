import BeaconCore
import CCrypto

/// The Database Hash of an attribute table (Core v5.4 Vol 3 Part G §7.3.1): AES-CMAC with a zero key
/// (Vol 3 Part H §2.2.5, RFC 4493) over, in handle order,
///
/// - service, include and characteristic declarations and Characteristic Extended Properties (0x2900):
///   handle (2, little-endian) ‖ type (the attribute type as on the air, 2 or 16 octets) ‖ value;
/// - Characteristic User Description, CCCD, SCCD, Presentation Format, Aggregate Format (0x2901–0x2905):
///   handle ‖ type, no value;
/// - nothing of any other attribute (characteristic values, other descriptors).
///
/// The characteristic value is the CMAC's 16 octets reversed [I]: the specification does not say; Zephyr
/// swaps the CMAC to little-endian as Part F §3.3.1 asks of multi-octet values (and the qualification
/// tester expects that), BlueZ sends it unswapped. A client must treat the hash as opaque either way.
/// The specification's own example (Part G Appendix B) is checked in `GATTDatabaseHashTests`.
public enum GATTDatabaseHash {
  /// The types whose handle and type (but not value) are hashed.
  static let typeOnly: Set<BluetoothUUID> = Set((0x2901...0x2905).map { BluetoothUUID(UInt16($0)) })

  /// The CMAC input for `table` (an Extended Properties descriptor's value is the one the table holds).
  public static func message(_ table: GATTAttributeTable) -> [UInt8] {
    var m: [UInt8] = []
    for a in table.attributes {
      var value: [UInt8]?
      switch a.role {
      case .service(let s, _): value = s.uuid.attBytes
      case .include(let start, let end, let uuid):
        value = GATTInclude.value(startHandle: start, endHandle: end, uuid: uuid)
      case .declaration(let c, let valueHandle):
        value = [c.properties.rawValue, UInt8(valueHandle & 0xFF), UInt8(valueHandle >> 8)] + c.uuid.attBytes
      case .descriptor(let d) where d.uuid == GATTAttributeType.extendedProperties: value = d.value
      case .cccd: value = []
      case .descriptor(let d) where typeOnly.contains(d.uuid): value = []
      default: value = nil
      }
      guard let value else { continue }
      m += [UInt8(a.handle & 0xFF), UInt8(a.handle >> 8)] + a.type.attBytes
      m += value
    }
    return m
  }

  /// The characteristic value: `cmac(zero key, message)` reversed (see the type's documentation).
  public static func value(of table: GATTAttributeTable) -> [UInt8] {
    Array(AESCMAC.mac(key: [UInt8](repeating: 0, count: 16), message(table)).reversed())
  }
}

/// AES-CMAC (RFC 4493) over OpenSSL's AES-128 block cipher, the MAC the Bluetooth Core uses for the
/// Database Hash (Vol 3 Part H §2.2.5).
public enum AESCMAC {
  /// The 16-octet MAC of `message` under the 16-octet `key`.
  public static func mac(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
    precondition(key.count == 16, "AES-128 takes a 16-octet key")
    let l = encrypt(key, [UInt8](repeating: 0, count: 16))
    let k1 = subkey(l)
    let k2 = subkey(k1)
    let blocks = max(1, (message.count + 15) / 16)
    let complete = !message.isEmpty && message.count % 16 == 0
    var x = [UInt8](repeating: 0, count: 16)
    for i in 0..<(blocks - 1) {
      x = encrypt(key, zip(x, message[(i * 16)..<(i * 16 + 16)]).map { $0 ^ $1 })
    }
    var last = Array(message[((blocks - 1) * 16)...])
    if complete {
      last = zip(last, k1).map { $0 ^ $1 }
    } else {
      last.append(0x80)
      last += [UInt8](repeating: 0, count: 16 - last.count)
      last = zip(last, k2).map { $0 ^ $1 }
    }
    return encrypt(key, zip(x, last).map { $0 ^ $1 })
  }

  /// RFC 4493 §2.3: shift left one bit, XOR 0x87 into the last octet when the top bit was set.
  static func subkey(_ block: [UInt8]) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: 16)
    for i in 0..<16 { out[i] = block[i] << 1 | (i < 15 ? block[i + 1] >> 7 : 0) }
    if block[0] & 0x80 != 0 { out[15] ^= 0x87 }
    return out
  }

  /// One AES-128 block (ECB, no padding) through EVP. Failure only comes from allocation; it then
  /// returns zeros, and the hash simply never matches.
  static func encrypt(_ key: [UInt8], _ block: [UInt8]) -> [UInt8] {
    guard let context = EVP_CIPHER_CTX_new() else { return [UInt8](repeating: 0, count: 16) }
    defer { EVP_CIPHER_CTX_free(context) }
    var out = [UInt8](repeating: 0, count: 32)
    var written: Int32 = 0
    guard EVP_EncryptInit_ex(context, EVP_aes_128_ecb(), nil, key, nil) == 1,
      EVP_CIPHER_CTX_set_padding(context, 0) == 1,
      EVP_EncryptUpdate(context, &out, &written, block, 16) == 1, written == 16
    else { return [UInt8](repeating: 0, count: 16) }
    return Array(out.prefix(16))
  }
}
