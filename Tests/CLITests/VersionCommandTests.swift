import Foundation
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// `beacon-provision --version`: the version, the commit, and each linked C library's version as
/// the library reports it at run time. The expected versions come from pkg-config, i.e. the -dev packages
/// the binary was linked against on this machine, so a line that printed a constant would fail on the next
/// Debian point release of that library.
@Suite(.timeLimit(.minutes(1))) struct VersionCommandTests {
  /// `pkg-config --modversion name`.
  static func modversion(_ name: String) async throws -> String {
    let run = try await ChildProcess.run("/usr/bin/pkg-config", ["--modversion", name], input: .none)
    return run.output.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @Test func versionNamesEveryLinkedLibraryWithItsRuntimeVersion() async throws {
    let run = try await CLIProcess.run(["--version"])
    #expect(run.status == 0, "\(run.errors)")
    let lines = run.output.split(separator: "\n").map(String.init)
    // A test build is not stamped by scripts/package.
    #expect(lines.first == "beacon-provision dev")
    #expect(lines.contains("commit unknown (not built by scripts/package)"))
    for (prefix, module) in [
      ("  libcurl ", "libcurl"), ("  libzip ", "libzip"), ("  SQLite ", "sqlite3"), ("  libpq ", "libpq"),
    ] {
      let expected = try await Self.modversion(module)
      #expect(lines.contains(prefix + expected), "no line \(prefix)\(expected) in \(lines)")
    }
    let openssl = try await Self.modversion("openssl")
    #expect(lines.contains { $0.hasPrefix("  OpenSSL \(openssl) ") }, "no OpenSSL \(openssl) line in \(lines)")
    #expect(lines.contains { $0.hasPrefix("  BlueZ not recorded (libbluetooth has no version call") })
  }

  /// Every command's `--version` is the tool's own: `dfu update`'s package version is `--package-version`,
  /// `firmware fetch`'s release `--release` (`dfu update --version` once asked for a value).
  @Test func subcommandsVersionIsTheTools() async throws {
    for command in [["dfu", "update"], ["firmware", "fetch"]] {
      let run = try await CLIProcess.run(command + ["--version"])
      #expect(run.status == 0 && run.output.hasPrefix("beacon-provision "), "\(command): \(run)")
    }
    let update = try DFUUpdateCommand.parse(["--package", "/srv/fw/app.zip", "--package-version", "V5.30"])
    #expect(update.version == "V5.30")
    #expect(try FirmwareFetchCommand.parse(["KBPro", "--hver", "V1.0", "--release", "V5.14"]).version == "V5.14")
  }

  @Test func aStampedBuildSaysItsBlueZPackageVersionAndWhereItCameFrom() {
    var libraries = LibraryVersions.current()
    libraries.bluez = "5.66-1+deb12u2 (libbluetooth3 package at build time: libbluetooth has no version call)"
    let text = VersionText.render(version: "0.1.0~git644.b278399", commit: "b278399", libraries: libraries)
    #expect(text.hasPrefix("beacon-provision 0.1.0~git644.b278399\ncommit b278399\nlibraries:\n  libcurl "))
    #expect(text.contains("\n  BlueZ 5.66-1+deb12u2 (libbluetooth3 package at build time"))
  }

  @Test func postgresVersionNumbersReadAsPostgreSQLWritesThem() {
    #expect(LibraryVersions.postgresVersion(150018) == "15.18")
    #expect(LibraryVersions.postgresVersion(170002) == "17.2")
    #expect(LibraryVersions.postgresVersion(90624) == "9.6.24")
  }
}
