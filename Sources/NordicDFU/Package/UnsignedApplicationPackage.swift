/// An unsigned application package laid out as `nrfutil pkg generate --application` lays it out
/// (docs/protocols/nordic-dfu.md §1): `manifest.json` naming `app.bin` and `app.dat`, the init packet (§1.3:
/// type application, the image's size and byte-reversed SHA-256, a SHA-256 boot validation, no signature)
/// and the image, every entry stored (`StoredZipWriter`). For the simulator's fleets, the tests and the
/// benchmarks, which need packages of chosen versions and sizes without running nrfutil; what reads them is
/// the same code that reads nrfutil's (`NrfutilInteropTests` checks the two agree).
public enum UnsignedApplicationPackage {
  /// The manifest of an application-only package.
  public static let manifest = Array(#"{"manifest":{"application":{"bin_file":"app.bin","dat_file":"app.dat"}}}"#.utf8)

  /// The serialized init packet for `image`.
  public static func initPacket(
    for image: [UInt8], firmwareVersion: UInt32, hardwareVersion: UInt32 = 52,
    softDeviceRequirements: [UInt32] = [0x101]
  ) -> [UInt8] {
    InitPacket.serialize(
      InitCommand(
        firmwareVersion: firmwareVersion, hardwareVersion: hardwareVersion,
        softDeviceRequirements: softDeviceRequirements, type: .application, softDeviceSize: 0, bootloaderSize: 0,
        applicationSize: UInt32(image.count), hash: ImageHash(type: 3, digest: SHA256Digest.initPacketHash(of: image)),
        isDebug: false, bootValidations: [BootValidation(type: 1, bytes: [])]))
  }

  /// The whole .zip's bytes.
  public static func zip(
    image: [UInt8], firmwareVersion: UInt32, hardwareVersion: UInt32 = 52, softDeviceRequirements: [UInt32] = [0x101]
  ) -> [UInt8] {
    StoredZipWriter.archive([
      (name: "manifest.json", bytes: manifest),
      (
        name: "app.dat",
        bytes: initPacket(
          for: image, firmwareVersion: firmwareVersion, hardwareVersion: hardwareVersion,
          softDeviceRequirements: softDeviceRequirements)
      ),
      (name: "app.bin", bytes: image),
    ])
  }
}
