import Foundation
import NordicDFUIO
import Testing

@testable import NordicDFU

/// Bad packages are refused before any connection (docs/protocols/nordic-dfu.md §1.4; zip safety).
@Suite(.timeLimit(.minutes(2))) struct PackageSafetyTests {
  let expectations = DeviceExpectations(hardwareVersion: 52, softDeviceID: 0x101, applicationVersion: 1)

  func failedChecks(_ files: [(name: String, bytes: [UInt8])]) throws -> [String] {
    let pkg = try DFUPackage(archive: InMemoryArchive(files))
    return PackageValidator(expectations: expectations).checks(pkg).filter { $0.outcome == .failed }.map(\.name)
  }

  @Test func tamperedImageFailsTheHashCheck() throws {
    var files = try DFUFixtures.files(of: "app_unsigned.zip")
    let bin = try #require(files.firstIndex { $0.name == "app.bin" })
    files[bin].bytes[5000] ^= 0x80
    #expect(try failedChecks(files) == ["hash"])
  }

  @Test func imageOfTheWrongLengthFailsTheSizeCheck() throws {
    var files = try DFUFixtures.files(of: "app_unsigned.zip")
    let bin = try #require(files.firstIndex { $0.name == "app.bin" })
    files[bin].bytes.removeLast()
    #expect(try failedChecks(files) == ["size", "hash"])
  }

  @Test func wrongHardwareVersionIsRefused() throws {
    let firmware = DFUFixtures.firmware(count: 4096)
    let dat = DFUFixtures.applicationInitPacket(for: firmware, hardware: 51)
    #expect(
      try failedChecks([("manifest.json", DFUFixtures.applicationManifest), ("app.dat", dat), ("app.bin", firmware)])
        == ["hw-version"])
  }

  @Test func missingSoftDeviceAndOlderApplicationAreRefused() throws {
    let firmware = DFUFixtures.firmware(count: 100)
    let dat = DFUFixtures.applicationInitPacket(for: firmware, version: 0, sdReq: [0xB7])
    #expect(
      try failedChecks([("manifest.json", DFUFixtures.applicationManifest), ("app.dat", dat), ("app.bin", firmware)])
        == ["sd-req", "fw-version"])
  }

  @Test func truncatedZipIsRefused() throws {
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: DFUFixtures.path("app_signed.zip"))))
    let path = try DFUFixtures.temporaryFile(Array(bytes.prefix(bytes.count - 200)))
    defer { try? FileManager.default.removeItem(atPath: path) }
    #expect(throws: PackageError.self) { try DFUPackage(archive: LibzipArchive(path: path)) }
  }

  @Test func zipWithDotDotPathIsRefused() throws {
    let firmware = DFUFixtures.firmware(count: 64)
    let zip = StoredZipWriter.archive([
      ("manifest.json", DFUFixtures.applicationManifest), ("app.dat", DFUFixtures.applicationInitPacket(for: firmware)),
      ("app.bin", firmware), ("../evil.sh", Array("#!/bin/sh\n".utf8)),
    ])
    let path = try DFUFixtures.temporaryFile(zip)
    defer { try? FileManager.default.removeItem(atPath: path) }
    #expect(throws: PackageError.unsafeEntryName("../evil.sh")) { try LibzipArchive(path: path) }
  }

  @Test func storedZipWriterOutputReadsBackThroughLibzip() throws {
    let firmware = DFUFixtures.firmware(count: 3000)
    let dat = DFUFixtures.applicationInitPacket(for: firmware)
    let path = try DFUFixtures.temporaryFile(
      StoredZipWriter.archive([
        ("manifest.json", DFUFixtures.applicationManifest), ("app.dat", dat), ("app.bin", firmware),
      ]))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let pkg = try DFUPackage(archive: LibzipArchive(path: path))
    #expect(pkg.images.first?.firmware == firmware)
    try PackageValidator(expectations: expectations).validate(pkg)
  }

  @Test(arguments: ["/etc/passwd", "a/../../b", "..", "./app.bin", "a\\b", "C:x", "a//b", "bad\u{1}name"])
  func unsafeNamesAreRejected(name: String) {
    #expect(!ArchiveLimits.isSafeName(name))
  }

  @Test func ordinaryNamesAreAccepted() {
    #expect(ArchiveLimits.isSafeName("app.bin") && ArchiveLimits.isSafeName("dir/sd_bl.dat"))
  }

  @Test func entryCountSizeAndCompressionCapsApply() {
    let limits = ArchiveLimits()
    let many = (0..<17).map { ArchiveEntry(name: "f\($0)", size: 1, compressedSize: 1) }
    #expect(throws: PackageError.tooManyEntries(17)) { try limits.check(many) }
    #expect(throws: PackageError.entryTooLarge("big.bin", 5 << 20)) {
      try limits.check([ArchiveEntry(name: "big.bin", size: 5 << 20, compressedSize: 5 << 20)])
    }
    #expect(throws: PackageError.suspiciousCompression("bomb.bin")) {
      try limits.check([ArchiveEntry(name: "bomb.bin", size: 2 << 20, compressedSize: 1000)])
    }
    #expect(throws: PackageError.duplicateEntry("a")) {
      try limits.check([
        ArchiveEntry(name: "a", size: 1, compressedSize: 1), ArchiveEntry(name: "a", size: 1, compressedSize: 1),
      ])
    }
  }

  @Test func applicationPlusBootloaderWithoutSoftDeviceIsAnInvalidCombinationOnlyWhenTwoSystemParts() {
    #expect(DFUPackage.isValidCombination([.application]))
    #expect(DFUPackage.isValidCombination([.softDeviceBootloader, .application]))
    #expect(!DFUPackage.isValidCombination([.softDevice, .bootloader]))
    #expect(!DFUPackage.isValidCombination([]))
  }

  @Test func missingInitPacketAndOversizedInitPacketAreRefused() throws {
    let noDat = Array(#"{"manifest":{"application":{"bin_file":"app.bin"}}}"#.utf8)
    #expect(throws: PackageError.missingInitPacket(.application)) {
      try DFUPackage(archive: InMemoryArchive([("manifest.json", noDat), ("app.bin", [1, 2, 3, 4])]))
    }
    let big = [UInt8](repeating: 0x0A, count: 513)
    #expect(throws: PackageError.initPacketTooLarge(.application, 513)) {
      try DFUPackage(
        archive: InMemoryArchive([
          ("manifest.json", DFUFixtures.applicationManifest), ("app.dat", big), ("app.bin", [1, 2, 3, 4]),
        ]))
    }
  }
}
