import NordicDFUIO
import Testing

@testable import NordicDFU

/// A later image's `sd_req` is checked against the SoftDevice an earlier image installs (docs/protocols/nordic-dfu.md
/// §1.3, §1.4 item 5), with the nrfutil-made `sd_bl_app.zip` (Tests/Fixtures/dfu/README.md: `--sd-req 0xB7
/// --sd-id 0x101`; its SoftDevice's information structure says FWID 0x0101).
@Suite("SoftDevice requirements across images", .timeLimit(.minutes(1))) struct SoftDeviceChainTests {
  let package: DFUPackage

  init() throws { package = try DFUPackage(archive: LibzipArchive(path: DFUFixtures.path("sd_bl_app.zip"))) }

  @Test func theSoftDeviceImageCarriesItsFirmwareID() {
    #expect(package.images.map(\.kind) == [.softDeviceBootloader, .application])
    #expect(SoftDeviceInfo.firmwareID(in: package.images[0].firmware) == 0x0101)
    #expect(SoftDeviceInfo.firmwareID(in: package.images[1].firmware) == nil)
  }

  @Test func devicesWithTheOldSoftDeviceTakeThePackage() throws {
    let validator = PackageValidator(expectations: DeviceExpectations(hardwareVersion: 52, softDeviceID: 0xB7))
    try validator.validate(package)
    let sdReq = validator.checks(package).filter { $0.name == "sd-req" }
    #expect(sdReq.map(\.outcome) == [.passed, .passed])
    #expect(sdReq[1].detail == "0x101 (installed by image #0)")
  }

  @Test func anApplicationNeedingAnotherSoftDeviceThanTheOneInstalledFails() throws {
    var images = package.images
    var command = images[1].initPacket.initCommand
    command.softDeviceRequirements = [0xB7]
    images[1].initPacket.initCommand = command
    let checks = PackageValidator(expectations: DeviceExpectations(softDeviceID: 0xB7)).checks(
      DFUPackage(images: images))
    #expect(
      checks.filter { $0.outcome == .failed }.map(\.detail) == [
        "package needs SoftDevice 0xB7, image #0 installs 0x101"
      ])
  }

  @Test func aSoftDeviceWithoutInformationStructureLeavesTheLaterCheckSkipped() {
    var images = package.images
    images[0].firmware[0x2004] ^= 0xFF  // break the magic number
    let checks = PackageValidator(expectations: DeviceExpectations(softDeviceID: 0xB7)).checks(
      DFUPackage(images: images))
    #expect(checks.first { $0.image == 1 && $0.name == "sd-req" }?.outcome == .skipped)
  }
}
