import Foundation
import NordicDFU

/// DFU packages for the fleet campaign tests, written as real .zip files (manifest + init packet + image)
/// the way `nrfutil pkg generate` lays them out, so `dfu update` reads them through libzip.
enum DFUFleetPackages {
  /// Deterministic pseudo-random bytes (a 64-bit LCG).
  static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return UInt8(truncatingIfNeeded: state >> 33)
    }
  }

  /// An unsigned application package of `count` bytes with `fw_version` `version` and hw_version 52,
  /// SoftDevice requirement S140 7.0.1 (0x0101, what the simulated bootloader has), at a temporary path.
  static func application(count: Int = 10_000, version: UInt32 = 530, hardware: UInt32 = 52) throws -> String {
    let firmware = bytes(count, seed: 0xF1EE7)
    let zip = UnsignedApplicationPackage.zip(image: firmware, firmwareVersion: version, hardwareVersion: hardware)
    let path = NSTemporaryDirectory() + "app-\(version)-\(UUID().uuidString).zip"
    try Data(zip).write(to: URL(fileURLWithPath: path))
    return path
  }
}
