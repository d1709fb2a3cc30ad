import CCrypto

/// Checks a Secure DFU init-packet signature (docs/protocols/nordic-dfu.md §1.3): ECDSA P-256 over SHA-256 of the
/// serialised `InitCommand` bytes, the signature stored as r‖s with each 32-byte half little-endian.
/// The public key comes as a PEM `PUBLIC KEY` (what `nrfutil keys display --key pk --format pem` prints).
public struct DFUPublicKey: Sendable {
  /// The key as DER SubjectPublicKeyInfo; parsed again for every check so no OpenSSL object is shared.
  let der: [UInt8]

  /// Parses a PEM public key; it must be an EC key on P-256 (prime256v1).
  public init(pem: String) throws(SignatureError) {
    let bytes = Array(pem.utf8)
    guard let pemLength = Int32(exactly: bytes.count) else { throw .invalidPublicKey }
    // A memory BIO reads the caller's buffer in place (it does not copy), so it must not outlive the
    // pointer `withUnsafeBytes` lends: the BIO is made, read and freed inside the closure.
    let parsed: OpaquePointer? = bytes.withUnsafeBytes { buffer in
      guard let bio = BIO_new_mem_buf(buffer.baseAddress, pemLength) else { return nil }
      defer { BIO_free(bio) }
      return PEM_read_bio_PUBKEY(bio, nil, nil, nil)
    }
    guard let key = parsed else {
      ERR_clear_error()
      throw .invalidPublicKey
    }
    defer { EVP_PKEY_free(key) }
    guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC, EVP_PKEY_get_bits(key) == 256 else { throw .notP256 }
    var out: UnsafeMutablePointer<UInt8>? = nil
    let length = i2d_PUBKEY(key, &out)
    guard length > 0, let out else { throw .invalidPublicKey }
    der = Array(UnsafeBufferPointer(start: out, count: Int(length)))
    CRYPTO_free(out, #file, #line)
  }

  /// True when `signature` (64 bytes, halves little-endian) is a valid signature of `message`.
  public func verifies(_ signature: [UInt8], of message: [UInt8]) throws(SignatureError) -> Bool {
    guard signature.count == 64 else { throw .wrongSignatureLength(signature.count) }
    let r = Array(signature[0..<32].reversed())
    let s = Array(signature[32..<64].reversed())
    guard let sig = ECDSA_SIG_new() else { throw .openSSL }
    defer { ECDSA_SIG_free(sig) }
    guard let bnR = BN_bin2bn(r, 32, nil), let bnS = BN_bin2bn(s, 32, nil) else { throw .openSSL }
    guard ECDSA_SIG_set0(sig, bnR, bnS) == 1 else {
      BN_free(bnR)
      BN_free(bnS)
      throw .openSSL
    }
    var derSig: UnsafeMutablePointer<UInt8>? = nil
    let sigLength = i2d_ECDSA_SIG(sig, &derSig)
    guard sigLength > 0, let derSig else { throw .openSSL }
    defer { CRYPTO_free(derSig, #file, #line) }

    var cursor: UnsafePointer<UInt8>? = nil
    let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
      cursor = buffer.baseAddress
      return d2i_PUBKEY(nil, &cursor, buffer.count)
    }
    guard let key else { throw .invalidPublicKey }
    defer { EVP_PKEY_free(key) }
    guard let context = EVP_MD_CTX_new() else { throw .openSSL }
    defer { EVP_MD_CTX_free(context) }
    guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { throw .openSSL }
    let result = message.withUnsafeBufferPointer { m in
      EVP_DigestVerify(context, derSig, Int(sigLength), m.baseAddress, m.count)
    }
    ERR_clear_error()
    return result == 1
  }
}

/// Why a signature could not be checked.
public enum SignatureError: Error, Equatable, Sendable, CustomStringConvertible {
  case invalidPublicKey
  case notP256
  case wrongSignatureLength(Int)
  case openSSL

  public var description: String {
    switch self {
    case .invalidPublicKey: "the public key is not a PEM public key"
    case .notP256: "the public key is not an ECDSA P-256 key"
    case .wrongSignatureLength(let n): "the signature is \(n) bytes, expected 64 (r‖s)"
    case .openSSL: "OpenSSL could not check the signature"
    }
  }
}
