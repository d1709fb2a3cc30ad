import Foundation
import Testing

@testable import BeaconProvisionCLI

/// contrib/systemd's units pass `systemd-analyze verify` with nothing to say (it exits 0 even on unknown keys
/// and bad values and only warns, so any output fails), and keep the hardening they promise: capabilities
/// instead of root, sandboxing, restart and reload. The binary path is pointed at the built binary (verify
/// checks that ExecStart's program exists).
@Suite(.timeLimit(.minutes(2))) struct SystemdUnitTests {
  static let analyze = "/usr/bin/systemd-analyze"
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("contrib/systemd").path

  /// `systemd-analyze verify` on a copy of `text` named `name`: its exit status and everything it said.
  static func verify(_ name: String, _ text: String) async throws -> (status: Int32, said: String) {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("units-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent(name).path
    try text.replacingOccurrences(of: "/usr/local/bin/beacon-provision", with: ApplyCrashTests.binary)
      .write(toFile: path, atomically: true, encoding: .utf8)
    let (status, output, errors) = try await MonitorProcess.tool(analyze, ["verify", path])
    return (status, (output + errors).trimmingCharacters(in: .whitespacesAndNewlines))
  }

  @Test(arguments: ["beacon-provision-monitor.service", "beacon-provision-reconcile.service"])
  func unitVerifiesCleanAndIsHardened(_ name: String) async throws {
    guard FileManager.default.isExecutableFile(atPath: Self.analyze) else {
      print("SystemdUnitTests: SKIPPED, \(Self.analyze) is missing (install systemd to check contrib/systemd)")
      return
    }
    let text = try String(contentsOfFile: Self.folder + "/" + name, encoding: .utf8)
    let (status, said) = try await Self.verify(name, text)
    #expect(status == 0 && said.isEmpty, "systemd-analyze verify \(name): \(said)")
    for line in [
      "AmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN", "CapabilityBoundingSet=CAP_NET_RAW CAP_NET_ADMIN",
      "DynamicUser=yes", "NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes",
      "RestrictAddressFamilies=AF_BLUETOOTH AF_UNIX AF_INET AF_INET6 AF_NETLINK", "Restart=on-failure",
      "ExecReload=/bin/kill -HUP $MAINPID",
    ] {
      #expect(text.split(separator: "\n").contains { $0 == line }, "\(name) lacks \(line)")
    }
    #expect(text.contains("StateDirectory=beacon-provision") && text.contains("--metrics 127.0.0.1:"))
    #expect(!text.split(separator: "\n").contains { $0.hasPrefix("User=root") })
  }

  /// ExecStart's arguments are the command line of this build: `systemd-analyze verify` checks only that the
  /// program exists, so a unit naming an option the command does not have (the reconcile unit once passed
  /// `--inventory` and `--password-file`) failed only when the service started. systemd's specifiers are
  /// replaced by what they stand for.
  @Test(arguments: ["beacon-provision-monitor.service", "beacon-provision-reconcile.service"])
  func execStartParsesWithTheBuiltCommandLine(_ name: String) throws {
    let text = try String(contentsOfFile: Self.folder + "/" + name, encoding: .utf8)
    let joined = text.replacingOccurrences(of: "\\\n", with: " ")
    let line = try #require(joined.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
    let words = line.dropFirst("ExecStart=".count).split(separator: " ").map {
      $0.replacingOccurrences(of: "%S", with: "/var/lib").replacingOccurrences(of: "%d", with: "/run/credentials/x")
    }
    #expect(words.first == "/usr/local/bin/beacon-provision")
    #expect(throws: Never.self, "\(name): \(words.dropFirst().joined(separator: " "))") {
      _ = try BeaconProvision.parseAsRoot(Array(words.dropFirst()))
    }
  }

  /// The check itself: a unit with a misspelt key and a bad value is not passed.
  @Test func verifyCatchesAMisspeltKeyAndABadValue() async throws {
    guard FileManager.default.isExecutableFile(atPath: Self.analyze) else {
      print("SystemdUnitTests: SKIPPED, \(Self.analyze) is missing")
      return
    }
    let text = try String(contentsOfFile: Self.folder + "/beacon-provision-monitor.service", encoding: .utf8)
    for broken in [
      text.replacingOccurrences(of: "ProtectSystem=strict", with: "ProtectSystem=stricter"),
      text.replacingOccurrences(of: "\nRestart=on-failure", with: "\nRestarts=on-failure"),
    ] {
      #expect(try await Self.verify("beacon-provision-monitor.service", broken).said.isEmpty == false)
    }
  }
}
