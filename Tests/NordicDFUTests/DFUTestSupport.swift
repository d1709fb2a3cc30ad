import Foundation
import NordicDFUIO

@testable import NordicDFU

/// Fixture paths and small package builders shared by the NordicDFU tests.
enum DFUFixtures {
  /// `Tests/Fixtures/dfu/`: packages made by Nordic's nrfutil 6.1.7 (and adafruit-nrfutil for the legacy one).
  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures/dfu")

  static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

  static func publicKeyPEM() throws -> String { try String(contentsOfFile: path("public.pem"), encoding: .utf8) }

  /// A P-256 public key that did not sign the fixtures (made with `openssl ecparam -genkey`).
  static let otherPublicKeyPEM = """
    -----BEGIN PUBLIC KEY-----
    MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAECK1WbVdNnFeQvnQrZAcE9NZuhIh5
    b3ipxPEdbyleYOXgBDhuulKsjARDoLy59ldJw4SMLUwLYhdKIsi9amYBog==
    -----END PUBLIC KEY-----
    """

  /// The files of a fixture zip, read through libzip.
  static func files(of name: String) throws -> [(name: String, bytes: [UInt8])] {
    let archive = try LibzipArchive(path: path(name))
    return try archive.entries.map { ($0.name, try archive.read($0.name)) }
  }

  /// Deterministic pseudo-random firmware.
  static func firmware(count: Int, seed: UInt64 = 1) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return UInt8(truncatingIfNeeded: state >> 33)
    }
  }

  /// An unsigned application init packet as nrfutil would make it for `firmware`.
  static func applicationInitPacket(
    for firmware: [UInt8], version: UInt32 = 2, hardware: UInt32 = 52, sdReq: [UInt32] = [0x101]
  ) -> [UInt8] {
    UnsignedApplicationPackage.initPacket(
      for: firmware, firmwareVersion: version, hardwareVersion: hardware, softDeviceRequirements: sdReq)
  }

  static let applicationManifest = UnsignedApplicationPackage.manifest

  /// Writes bytes to a fresh temporary file and returns its path.
  static func temporaryFile(_ bytes: [UInt8], suffix: String = ".zip") throws -> String {
    let path = NSTemporaryDirectory() + "dfu-test-\(UUID().uuidString)\(suffix)"
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }
}
