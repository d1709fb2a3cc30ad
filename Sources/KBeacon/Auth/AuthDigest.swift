import BeaconCore
import CCrypto

/// The MD5 challenge digest of docs/protocols/kbeacon.md §5: `MD5(MAC_LE ‖ A9 B1 ‖ random[4] ‖ password UTF-8)`,
/// where `MAC_LE` is the six address bytes reversed (least significant first) and the password is not
/// padded. The short form XOR-folds the 16 bytes into 8 (first half XOR second half).
public enum AuthDigest {
  /// `AUTH_FACTOR_ID_1/2`.
  public static let factor: [UInt8] = [0xA9, 0xB1]

  /// The 16-byte digest.
  public static func full(address: BluetoothAddress, random: [UInt8], password: [UInt8]) -> [UInt8] {
    md5(address.littleEndianBytes + factor + random + password)
  }

  /// The 8-byte XOR-folded digest used with the short challenge (subtype 0x0B/0x0C).
  public static func short(address: BluetoothAddress, random: [UInt8], password: [UInt8]) -> [UInt8] {
    fold(full(address: address, random: random, password: password))
  }

  static func fold(_ digest: [UInt8]) -> [UInt8] { (0..<8).map { digest[$0] ^ digest[$0 + 8] } }

  /// MD5 through OpenSSL's EVP API (the project's one crypto library, `CCrypto`).
  public static func md5(_ input: [UInt8]) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: 16)
    var size: UInt32 = 0
    let ok = input.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &digest, &size, EVP_md5(), nil) }
    // EVP_Digest with MD5 only fails on allocation failure; an all-zero digest then simply fails auth.
    return ok == 1 && size == 16 ? digest : [UInt8](repeating: 0, count: 16)
  }

  /// Constant-time comparison so a simulated device does not leak how many digest bytes matched.
  static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
  }
}

/// A KBeacon password: 8–16 UTF-8 characters (§5; factory default sixteen ASCII zeros). Its description
/// never shows the secret.
public struct KBeaconPassword: Sendable, Hashable, CustomStringConvertible {
  public static let factoryDefault = KBeaconPassword(unchecked: "0000000000000000")
  public static let allowedLengths = 8...16

  let utf8: [UInt8]

  public init(_ text: String) throws(KBeaconAuthenticationError) {
    guard Self.allowedLengths.contains(text.count) else { throw .invalidPasswordLength(text.count) }
    utf8 = Array(text.utf8)
  }

  private init(unchecked text: String) { utf8 = Array(text.utf8) }

  public var description: String { "<password>" }

  /// The secret itself, for the simulated device's own memory only (never printed or logged).
  package var text: String { String(decoding: utf8, as: UTF8.self) }
}
