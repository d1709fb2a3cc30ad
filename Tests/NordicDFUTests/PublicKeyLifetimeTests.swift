import BeaconCore
import NordicDFUIO
import Testing

@testable import NordicDFU

/// `DFUPublicKey` once handed OpenSSL a memory BIO over a buffer that `withUnsafeBytes` had already taken
/// back (AddressSanitizer reports it as a heap use-after-free). The key must be fully parsed
/// while the PEM's bytes are lent, and keep nothing that points into them. Run these under
/// `swift test --sanitize=address` to see the read; without the sanitizer they check the key still works.
@Suite("Public key lifetime", .timeLimit(.minutes(2)))
struct PublicKeyLifetimeTests {
  /// The PEM lives only inside this function; the key outlives it.
  static func keyFromAPEMThatIsGone() throws -> DFUPublicKey {
    var pem = try DFUFixtures.publicKeyPEM()
    let key = try DFUPublicKey(pem: pem)
    pem = String(repeating: "x", count: pem.utf8.count)  // the original storage is released
    return key
  }

  /// The signature nrfutil 6.1.7 wrote into `app_signed.zip` (nrfutil-display.txt) verifies with the
  /// fixture key loaded from a PEM that no longer exists, and fails once a byte of the command changes.
  @Test func aKeyLoadedFromAReleasedPEMVerifiesTheFixtureSignature() throws {
    let key = try Self.keyFromAPEMThatIsGone()
    let image = try #require(
      try DFUPackage(archive: LibzipArchive(path: DFUFixtures.path("app_signed.zip"))).images.first)
    let signature = try #require(image.initPacket.signature)
    #expect(
      Hex.encode(signature.bytes).lowercased()
        == "3003c78d420e798b3576df35e4cfebdf8260d74220d1ac58e085f45c3677d1b732e0e80e5bc65d75c103e981c95b7f6715ba99506be48acb4cf1027c9b22f5c3"
    )
    #expect(try key.verifies(signature.bytes, of: image.initPacket.initCommandBytes))
    var altered = image.initPacket.initCommandBytes
    altered[altered.count - 1] ^= 0x01
    #expect(try !key.verifies(signature.bytes, of: altered))
  }

  @Test func aPEMWithTrailingGarbageOrNothingIsRefusedNotRead() throws {
    #expect(throws: SignatureError.invalidPublicKey) { try DFUPublicKey(pem: "") }
    #expect(throws: SignatureError.invalidPublicKey) { try DFUPublicKey(pem: "-----BEGIN PUBLIC KEY-----\nAAAA") }
  }
}
