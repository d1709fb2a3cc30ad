import ArgumentParser
import Foundation
import Testing

@testable import BeaconProvisionCLI

/// `--journal` and its companions as an operator types them: where the URL comes from, what is
/// refused and that no password is ever shown.
@Suite(.timeLimit(.minutes(5))) struct SharedJournalOptionsTests {
  static func options(_ extra: [String]) throws -> ProvisionOptions {
    try ProvisionOptions.parse(["site.json"] + extra)
  }

  @Test func theFlagWinsOverTheEnvironmentAndNeitherMeansSQLite() throws {
    let flag = try Self.options(["--journal", "postgresql://ops@db/fleet"])
    #expect(
      try flag.shared.location.postgresURL(environment: ["BEACON_PROVISION_JOURNAL": "postgresql://other@db/x"])?.text
        == "postgresql://ops@db/fleet")
    let none = try Self.options([])
    #expect(
      try none.shared.location.postgresURL(environment: ["BEACON_PROVISION_JOURNAL": "postgresql://env@db/x"])?.text
        == "postgresql://env@db/x")
    #expect(try none.shared.location.postgresURL(environment: [:]) == nil)
    #expect(try none.shared.location.postgresURL(environment: ["BEACON_PROVISION_JOURNAL": ""]) == nil)
  }

  @Test func aPasswordInTheURLOrARunWithoutAServerIsRefused() throws {
    let secret = try Self.options(["--journal", "postgresql://ops:hunter22@db/fleet"])
    let error = #expect(throws: CLIFailure.self) { try secret.shared.postgresURL() }
    let text = "\(try #require(error))"
    #expect(text.contains("--journal postgresql://ops:***@db/fleet") && !text.contains("hunter22"))
    let lonely = try Self.options(["--run", "site-1"])
    let refusal = #expect(throws: CLIFailure.self) { try lonely.shared.postgresURL() }
    #expect(
      "\(try #require(refusal))".contains("--run shares a run between gateways: it needs --journal postgresql://"))
  }

  @Test func thePasswordFileGivesItsFirstLineAndAnEmptyOneIsRefused() throws {
    let folder = NSTemporaryDirectory() + "pgpass-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try "s3cret\nignored\n".write(toFile: folder + "/pw", atomically: true, encoding: .utf8)
    try "\n".write(toFile: folder + "/empty", atomically: true, encoding: .utf8)
    #expect(try Self.options(["--journal-password-file", folder + "/pw"]).shared.password() == "s3cret")
    #expect(try Self.options([]).shared.password() == nil)
    let error = #expect(throws: CLIFailure.self) {
      try Self.options(["--journal-password-file", folder + "/empty"]).shared.password()
    }
    #expect("\(try #require(error))".contains("the first line is empty"))
  }

  /// An empty `--run` or `--gateway` is a usage error (exit 64) naming the option, for `apply` and `dfu update`
  /// alike (both were once accepted).
  @Test func anEmptyRunOrGatewayNameIsAUsageError() throws {
    for arguments in [
      ["apply", "site.json", "--run", ""], ["apply", "site.json", "--gateway", " "],
      ["dfu", "update", "--package", "fw.zip", "--run", ""], ["dfu", "update", "--package", "fw.zip", "--gateway", ""],
    ] {
      let option = arguments[arguments.count - 2]
      let error = #expect(throws: (any Error).self, "\(arguments)") { try BeaconProvision.parseAsRoot(arguments) }
      let thrown = try #require(error)
      #expect(BeaconProvision.exitCode(for: thrown) == ExitCode(64), "\(arguments)")
      #expect(BeaconProvision.message(for: thrown).contains("\(option) must name"), "\(arguments)")
    }
    #expect(try Self.options(["--run", "site-1", "--gateway", "hall-east"]).shared.gatewayName == "hall-east")
  }

  @Test func limitsAreChecked() throws {
    #expect(throws: (any Error).self) { try Self.options(["--lease", "0"]) }
    #expect(throws: (any Error).self) { try Self.options(["--gateway-margin", "-1"]) }
    #expect(throws: (any Error).self) { try Self.options(["--gateways", "0"]) }
    #expect(try Self.options(["--gateway-margin", "10"]).shared.coordination.rule.margin == 10)
    #expect(try Self.options(["--lease", "12"]).shared.coordination.renewalSeconds == 4)
  }
}
