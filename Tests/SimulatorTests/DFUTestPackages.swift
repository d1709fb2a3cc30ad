import Foundation
import NordicDFU
import NordicDFUIO

/// Fixture access and package builders for the simulator's DFU tests.
enum DFUTestPackages {
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures/dfu")

  static func fixturePath(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

  static func fixture(_ name: String) throws -> DFUPackage {
    try DFUPackage(archive: LibzipArchive(path: fixturePath(name)))
  }

  static func publicKey() throws -> DFUPublicKey {
    try DFUPublicKey(pem: String(contentsOfFile: fixturePath("public.pem"), encoding: .utf8))
  }

  /// Deterministic pseudo-random bytes.
  static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return UInt8(truncatingIfNeeded: state >> 33)
    }
  }

  static func command(_ type: FirmwareType, firmware: [UInt8], version: UInt32, sdSize: Int = 0, hardware: UInt32 = 52)
    -> InitCommand
  {
    let blSize = type == .softDeviceBootloader ? firmware.count - sdSize : (type == .bootloader ? firmware.count : 0)
    return InitCommand(
      firmwareVersion: version, hardwareVersion: hardware, softDeviceRequirements: [0x101, 0xB7], type: type,
      softDeviceSize: UInt32(sdSize), bootloaderSize: UInt32(blSize),
      applicationSize: type == .application ? UInt32(firmware.count) : 0,
      hash: ImageHash(type: 3, digest: SHA256Digest.initPacketHash(of: firmware)), isDebug: false,
      bootValidations: [BootValidation(type: 1, bytes: [])])
  }

  /// An unsigned application image of `count` bytes.
  static func application(_ count: Int, version: UInt32 = 7, seed: UInt64 = 42, hardware: UInt32 = 52)
    -> DFUTransferImage
  {
    let firmware = bytes(count, seed: seed)
    let dat = InitPacket.serialize(command(.application, firmware: firmware, version: version, hardware: hardware))
    return DFUTransferImage(name: "application", initPacket: dat, firmware: firmware)
  }

  /// An unsigned SoftDevice+bootloader image (8 KiB SD + 4 KiB BL), bootloader version 2.
  static func softDeviceBootloader() -> DFUTransferImage {
    let firmware = bytes(12288, seed: 7)
    let dat = InitPacket.serialize(command(.softDeviceBootloader, firmware: firmware, version: 2, sdSize: 8192))
    return DFUTransferImage(name: "softdevice_bootloader", initPacket: dat, firmware: firmware)
  }
}
