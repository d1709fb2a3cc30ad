import CCrypto

/// SHA-256 through OpenSSL's EVP interface (the project routes all cryptography through `CCrypto`).
/// Used for the image hash of docs/protocols/nordic-dfu.md §1.3 (stored byte-reversed in the init packet).
public enum SHA256Digest {
  public static func hash(_ bytes: [UInt8]) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    let ok = bytes.withUnsafeBytes { input in
      digest.withUnsafeMutableBytes { out in
        EVP_Digest(
          input.baseAddress, input.count, out.baseAddress?.assumingMemoryBound(to: UInt8.self), &length,
          EVP_sha256(), nil)
      }
    }
    precondition(ok == 1 && length == 32, "EVP_Digest(SHA-256) failed")  // only fails on allocation failure
    return digest
  }

  /// The digest as nrfutil stores it in `InitCommand.hash` (byte-reversed, §1.3).
  public static func initPacketHash(of image: [UInt8]) -> [UInt8] { hash(image).reversed() }
}
