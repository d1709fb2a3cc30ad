import CCrypto

/// SHA-256 over bytes given in pieces (OpenSSL's EVP digest context), so a file of any size is hashed with
/// one buffer's memory: a firmware package used to be read whole into memory to be hashed (142 MB peak for a
/// large file). Pure: the caller reads the bytes.
public final class SHA256Stream {
  private let context: OpaquePointer

  public init() {
    // EVP_MD_CTX_new and EVP_DigestInit_ex fail only when memory cannot be allocated.
    guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new failed: out of memory") }
    precondition(EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1, "EVP_DigestInit_ex(SHA-256) failed")
    self.context = context
  }

  deinit { EVP_MD_CTX_free(context) }

  public func update(_ bytes: UnsafeRawBufferPointer) {
    guard let base = bytes.baseAddress, bytes.count > 0 else { return }
    precondition(EVP_DigestUpdate(context, base, bytes.count) == 1, "EVP_DigestUpdate failed")
  }

  public func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

  /// The digest of everything given so far; the stream is done after it.
  public func finish() -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    let ok = digest.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
    precondition(ok == 1 && length == 32, "EVP_DigestFinal_ex(SHA-256) failed")
    return digest
  }
}
