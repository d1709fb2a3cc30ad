import NordicDFU
import Testing

@testable import Simulator

/// The simulated bootloader learns the new SoftDevice's FWID from the image it activates, as the SDK's
/// `SD_FWID_GET` reads it from flash (nrf_sdm.h: information structure at +0x2000, FWID at +0x0C).
@Suite("Simulated SoftDevice install", .timeLimit(.minutes(1))) struct SimulatedSoftDeviceInstallTests {
  @Test func theInstalledFirmwareIDComesFromTheSoftDevicesInformationStructure() async throws {
    var firmware = DFUTestPackages.bytes(12288, seed: 7)
    firmware.replaceSubrange(0x2004..<0x2008, with: [0xDB, 0xE5, 0xB1, 0x51])  // SD_MAGIC_NUMBER, little-endian
    firmware.replaceSubrange(0x200C..<0x200E, with: [0x23, 0x01])  // FWID 0x0123
    let dat = InitPacket.serialize(
      DFUTestPackages.command(.softDeviceBootloader, firmware: firmware, version: 2, sdSize: 8192))
    var config = DFUTargetConfiguration()
    config.softDeviceID = 0xB7
    let host = DFUTargetHost(target: SimulatedDFUTarget(configuration: config))
    try await DFUTransfer(factory: host, pause: { _ in }).run([
      DFUTransferImage(name: "softdevice_bootloader", initPacket: dat, firmware: firmware)
    ])
    // sd_req is [0x101, 0xB7]: the first entry is not what was installed
    #expect(await host.target.configuration.softDeviceID == 0x0123)
  }
}
