import Foundation
import Testing

@testable import BeaconProvisionCLI

/// Where the catalogue base URL comes from: `--catalog`, then `BEACON_PROVISION_CATALOG`, then
/// `"firmwareCatalog"` in `$XDG_CONFIG_HOME/beacon-provision/config.json`; a folder becomes a file:// URL.
@Suite("Firmware source options", .timeLimit(.minutes(1))) struct FirmwareSourceOptionsTests {
  static func options(_ arguments: [String]) throws -> FirmwareSourceOptions {
    try FirmwareSourceOptions.parse(arguments)
  }

  @Test func precedenceAndFolders() throws {
    let config = NSTemporaryDirectory() + "bp-config-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: config) }
    try FileManager.default.createDirectory(atPath: config + "/beacon-provision", withIntermediateDirectories: true)
    try #"{"firmwareCatalog": "https://config.example/fw"}"#.write(
      toFile: config + "/beacon-provision/config.json", atomically: true, encoding: .utf8)
    let environment = ["XDG_CONFIG_HOME": config, "BEACON_PROVISION_CATALOG": "http://env.example/fw/"]

    #expect(
      try Self.options(["--catalog", "https://option.example/fw"]).location(environment: environment).base
        == "https://option.example/fw/")
    #expect(try Self.options([]).location(environment: environment).base == "http://env.example/fw/")
    #expect(
      try Self.options([]).location(environment: ["XDG_CONFIG_HOME": config]).base == "https://config.example/fw/")
    #expect(
      try Self.options(["--catalog", "/srv/firmware/../firmware"]).location(environment: [:]).base
        == "file:///srv/firmware/")
    #expect(
      FirmwareSourceOptions.configFile(environment: ["HOME": "/home/op"])
        == "/home/op/.config/beacon-provision/config.json")
  }

  @Test func refusals() throws {
    let empty = ["XDG_CONFIG_HOME": "/nonexistent-\(UUID().uuidString)"]
    #expect(throws: CLIFailure.self) { try Self.options([]).location(environment: empty) }
    do {
      _ = try Self.options(["--catalog", "ftp://x/"]).location(environment: empty)
      Issue.record("ftp accepted")
    } catch let failure as CLIFailure {
      #expect(failure.message.contains("is not an http://, https:// or file:// URL"))
    }
    let config = NSTemporaryDirectory() + "bp-config-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: config) }
    try FileManager.default.createDirectory(atPath: config + "/beacon-provision", withIntermediateDirectories: true)
    try "{\n  \"firmwareCatalog\": 7}".write(
      toFile: config + "/beacon-provision/config.json", atomically: true, encoding: .utf8)
    do {
      _ = try Self.options([]).location(environment: ["XDG_CONFIG_HOME": config])
      Issue.record("a number accepted")
    } catch let failure as CLIFailure {
      #expect(failure.message.hasSuffix("config.json: $.firmwareCatalog: expected a string (a URL)"))
    }
  }

  @Test func downloadProgressLine() {
    // 2048 of 4096 bytes at 1024 B/s: half, 2 s to go.
    #expect(
      DownloadProgress.text(.init(bytes: 2048, total: 4096, bytesPerSecond: 1024), label: "a.zip")
        == "a.zip  2.0 KiB / 4.0 KiB  50%  1.0 KiB/s  ETA 2 s")
    #expect(!DownloadProgress(isTerminal: false).isTerminal)
  }
}
