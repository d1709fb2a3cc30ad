import Foundation
import NordicDFU
import Testing

@testable import BeaconProvisionCLI

/// Hostile-input review, "No size caps": a 500 MB profile was read whole (4.6 GB resident) and a 200 MB inventory took
/// 4 GB; `decode` took a 600 KB argument (283 MB). Every file the operator names is checked against its
/// kind's cap before it is read. The big files here are sparse (`ftruncate`): no test holds them in memory.
@Suite(.timeLimit(.minutes(2))) struct InputFileSizeTests {
  /// A fresh folder, removed by the caller.
  static func folder() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "input-size-\(UUID().uuidString.prefix(8))"
    ).path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  /// `prefix` followed by zero bytes up to `size` bytes in all, without writing the zeros.
  static func sparse(_ path: String, size: Int, prefix: String = "") throws {
    try Data(prefix.utf8).write(to: URL(fileURLWithPath: path))
    let fd = open(path, O_WRONLY)
    defer { close(fd) }
    #expect(fd >= 0 && ftruncate(fd, off_t(size)) == 0)
  }

  @Test func aFileOneByteOverItsCapIsRefusedWithItsSizeAndTheCap() throws {
    let dir = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let file = dir + "/big.json"
    try Self.sparse(file, size: InputLimit.profile.bytes + 1, prefix: #"{"version": 1, "desired": {"name": ""#)
    #expect(throws: CLIFailure.self) { try InputFile.read(file, limit: .profile) }
    do {
      try ProfileCheckCommand.parse([file]).run()
      Issue.record("accepted")
    } catch let failure as CLIFailure {
      #expect(
        failure.message.contains(
          "\(file) is 8388609 bytes; a profile larger than 8 MiB (8388608 bytes) is refused (no real site's comes near it)"
        ),
        "\(failure.message)")
    }
    // At the cap it is read (and then refused as JSON, which is not the point here).
    try Self.sparse(file, size: InputLimit.profile.bytes)
    #expect(try InputFile.read(file, limit: .profile).count == InputLimit.profile.bytes)
  }

  @Test func anInventoryOverItsCapIsRefusedBeforeTheProfilesTemplatesAreChecked() throws {
    let dir = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try #"{"version": 1, "inventory": "i.csv", "desired": {"name": "{{room}}"}}"#.write(
      toFile: dir + "/p.json", atomically: true, encoding: .utf8)
    try Self.sparse(dir + "/i.csv", size: InputLimit.inventory.bytes + 1, prefix: "address,room\n")
    do {
      try ProfileCheckCommand.parse([dir + "/p.json"]).run()
      Issue.record("accepted")
    } catch let failure as CLIFailure {
      #expect(
        failure.message.contains(
          "\(dir)/i.csv is 67108865 bytes; an inventory larger than 64 MiB (67108864 bytes) is refused"),
        "\(failure.message)")
      #expect(!failure.message.contains("names none"), "\(failure.message)")
    }
  }

  @Test func aFleetFileAnEventsFileAndAHeaderFileHaveCapsToo() throws {
    let dir = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try Self.sparse(dir + "/fleet.json", size: InputLimit.fleet.bytes + 1)
    #expect(throws: CLIFailure.self) { try CentralFactory.fleet(dir + "/fleet.json") }
    try Self.sparse(dir + "/headers", size: InputLimit.smallText.bytes + 1)
    do {
      _ = try WebhookHeaderFile.load(dir + "/headers")
      Issue.record("accepted")
    } catch let failure as CLIFailure {
      #expect(
        failure.message.hasPrefix(
          "--webhook-header-file: \(dir)/headers is 65537 bytes; a file of a few lines larger than 64 KiB"),
        "\(failure.message)")
    }
  }

  /// A `--package` file was the one operator input read without a cap (libzip opened whatever it was given):
  /// one byte over 16 MiB is refused from its size, naming the file, its size and the cap, for `dfu ble` /
  /// `dfu serial` (`load`), `dfu inspect` (`read`) and `dfu update --package` alike (all open it through
  /// `LibzipArchive`). At the cap it is opened (and then refused as no zip, which is not the point here).
  @Test func aDFUPackageOverItsCapIsRefusedWithItsSizeAndTheCap() throws {
    let dir = try Self.folder()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let file = dir + "/big.zip"
    try Self.sparse(file, size: (16 << 20) + 1, prefix: "PK\u{3}\u{4}")
    let expected =
      "\(file): the file is 16777217 bytes; a DFU package larger than 16 MiB (16777216 bytes) is refused (its images unpack to at most 8 MiB)"
    do {
      _ = try DFUPackage.load(path: file)
      Issue.record("accepted")
    } catch let failure as CLIFailure {
      #expect(failure.message == expected, "\(failure.message)")
    }
    do {
      _ = try DFUPackage.read(path: file)
      Issue.record("accepted")
    } catch {
      #expect(
        error.reason
          == "the file is 16777217 bytes; a DFU package larger than 16 MiB (16777216 bytes) is refused (its images unpack to at most 8 MiB)"
      )
    }
    try Self.sparse(file, size: 16 << 20)
    do {
      _ = try DFUPackage.load(path: file)
      Issue.record("accepted")
    } catch let failure as CLIFailure {
      #expect(failure.message.contains("not a readable zip"), "\(failure.message)")
    }
  }

  /// A character device says nothing of its size to stat: the read stops one byte past the cap.
  @Test func aDeviceWithoutASizeIsCutOffAtTheCap() throws {
    do {
      _ = try InputFile.read("/dev/zero", limit: .smallText)
      Issue.record("accepted")
    } catch let failure as CLIFailure {
      #expect(failure.message.hasPrefix("/dev/zero is more than 65536 bytes"), "\(failure.message)")
    }
  }

  @Test func decodeRefusesAPayloadLongerThanAnyAdvertisement() throws {
    let hex = String(repeating: "00", count: 300_000)
    do {
      _ = try (try DecodeCommand.parseAsRoot([hex]) as! DecodeCommand).output()
      Issue.record("accepted")
    } catch let failure as CLIFailure {
      #expect(
        failure.message
          == "the payload is 600000 characters; at most 1650 bytes are decoded (the most an extended advertisement carries)"
      )
    }
    // The longest one is decoded.
    _ = try (try DecodeCommand.parseAsRoot([String(repeating: "00", count: 1650)]) as! DecodeCommand).output()
  }
}
