import BeaconCore
import Foundation
import NordicDFUIO
import Testing

@testable import NordicDFU

/// Every fixture made by Nordic's nrfutil 6.1.7 is read and checked; the decoded fields are compared with
/// what `nrfutil pkg display` printed for the same file (Tests/Fixtures/dfu/nrfutil-display.txt).
@Suite(.timeLimit(.minutes(2))) struct PackageFixtureTests {
  func package(_ name: String) throws -> DFUPackage {
    try DFUPackage(archive: LibzipArchive(path: DFUFixtures.path(name)))
  }

  @Test func signedApplicationMatchesNrfutilDisplay() throws {
    let pkg = try package("app_signed.zip")
    #expect(pkg.images.count == 1)  // "Image count: 1"
    let image = try #require(pkg.images.first)
    #expect(image.kind == .application && image.binFile == "app.bin" && image.datFile == "app.dat")
    #expect(image.initPacketBytes.count == 139 && image.firmware.count == 10000)
    let packet = image.initPacket
    #expect(packet.opCode == 1)  // "op_code: INIT"
    #expect(packet.signature?.typeName == "ECDSA_P256_SHA256")
    #expect(
      packet.signature.map { Hex.encode($0.bytes).lowercased() }
        == "3003c78d420e798b3576df35e4cfebdf8260d74220d1ac58e085f45c3677d1b732e0e80e5bc65d75c103e981c95b7f6715ba99506be48acb4cf1027c9b22f5c3"
    )
    let c = packet.initCommand
    #expect(c.firmwareVersion == 3 && c.hardwareVersion == 52)
    #expect(c.softDeviceRequirements == [0x00])
    #expect(c.type == .application)
    #expect(c.softDeviceSize == 0 && c.bootloaderSize == 0 && c.applicationSize == 10000)
    #expect(c.hash?.typeName == "SHA256")
    #expect(
      c.hash.map { Hex.encode($0.digest).lowercased() }
        == "8e20ee475ed65ed79902923892ecfb229219c069be452ead1a3f188c8b5845e6")
    #expect(c.bootValidations.map(\.typeName) == ["VALIDATE_GENERATED_CRC"] && c.bootValidations[0].bytes.isEmpty)
    #expect(c.isDebug == false)
    // §5: the signature covers the 62 raw InitCommand bytes
    #expect(packet.initCommandBytes.count == 62)
  }

  @Test func unsignedApplicationMatchesNrfutilDisplay() throws {
    let image = try #require(try package("app_unsigned.zip").images.first)
    #expect(image.initPacketBytes.count == 73)
    #expect(image.initPacket.signature == nil)  // "signature_type: UNSIGNED"
    let c = image.initPacket.initCommand
    #expect(c.firmwareVersion == 0x0001_0203 && c.hardwareVersion == 52)
    #expect(c.softDeviceRequirements == [0x101, 0xB7])
    #expect(c.type == .application && c.applicationSize == 10000)
    #expect(
      c.hash.map { Hex.encode($0.digest).lowercased() }
        == "8e20ee475ed65ed79902923892ecfb229219c069be452ead1a3f188c8b5845e6")
  }

  @Test func signedFixturePassesEveryCheckWithTheFleetKey() throws {
    let key = try DFUPublicKey(pem: try DFUFixtures.publicKeyPEM())
    let validator = PackageValidator(
      expectations: DeviceExpectations(hardwareVersion: 52, softDeviceID: 0x101, applicationVersion: 1, publicKey: key))
    let checks = validator.checks(try package("app_signed.zip"))
    #expect(checks.allSatisfy { $0.outcome == .passed }, "\(checks.filter { $0.outcome != .passed })")
    #expect(checks.first { $0.name == "signature" }?.detail.contains("verified") == true)
  }

  @Test func signatureFromAnotherKeyIsRefused() throws {
    let key = try DFUPublicKey(pem: DFUFixtures.otherPublicKeyPEM)
    let validator = PackageValidator(expectations: DeviceExpectations(publicKey: key))
    #expect(throws: PackageValidationError.self) { try validator.validate(try package("app_signed.zip")) }
    #expect(validator.checks(try package("app_signed.zip")).first { $0.name == "signature" }?.outcome == .failed)
  }

  @Test func unsignedPackageIsRefusedWhenTheDevicesRequireSignatures() throws {
    let key = try DFUPublicKey(pem: try DFUFixtures.publicKeyPEM())
    let checks = PackageValidator(expectations: DeviceExpectations(publicKey: key)).checks(
      try package("app_unsigned.zip"))
    #expect(checks.first { $0.name == "signature" }?.outcome == .failed)
    #expect(PackageValidator().checks(try package("app_unsigned.zip")).allSatisfy { $0.outcome != .failed })
  }

  @Test func legacyPackageIsRefusedWithAClearMessage() throws {
    #expect(throws: PackageError.legacyPackage) { try package("legacy_app.zip") }
    #expect(PackageError.legacyPackage.description.contains("legacy"))
  }

  @Test func aLegacyInitPacketUnderASecureManifestIsAMalformedInitPacket() throws {
    // the 14-byte legacy app.dat (docs/protocols/nordic-dfu.md §1.2: type 0x0052, rev 0xFFFF, ver 0xFFFFFFFF, 1 sd_req 0xFFFE, crc16)
    // under a Secure manifest: the package is not legacy (§1.2 tells legacy by its manifest), its init
    // packet is malformed — first byte 0x52 is neither 0x0A nor 0x12.
    let files = try DFUFixtures.files(of: "legacy_app.zip").filter { $0.name != "manifest.json" }
    let archive = InMemoryArchive([("manifest.json", DFUFixtures.applicationManifest)] + files)
    #expect(throws: PackageError.invalidInitPacket(.application, .notSecureInitPacket(firstByte: 0x52))) {
      try DFUPackage(archive: archive)
    }
  }

  @Test func randomBytesAsTheInitPacketAreReportedAsMalformedNotLegacy() throws {
    let bin = DFUFixtures.firmware(count: 64)
    for seed: UInt64 in 1...8 {
      let dat = DFUFixtures.firmware(count: 40, seed: seed)
      let archive = InMemoryArchive([
        ("manifest.json", DFUFixtures.applicationManifest), ("app.dat", dat), ("app.bin", bin),
      ])
      do {
        _ = try DFUPackage(archive: archive)
        Issue.record("random init packet accepted (seed \(seed))")
      } catch {
        #expect(error.description.contains("init packet is malformed"), "\(error)")
        #expect(!error.description.contains("legacy"), "\(error)")
      }
    }
  }

  @Test func publicKeyThatIsNotPEMIsRejected() {
    #expect(throws: SignatureError.invalidPublicKey) { try DFUPublicKey(pem: "not a key") }
  }
}
