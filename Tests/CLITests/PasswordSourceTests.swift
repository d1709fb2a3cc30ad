import Foundation
import Profiles
import Testing

@testable import BeaconProvisionCLI

/// Where a profile's `auth` points, as `plan`/`apply` read it and `profile check` warns about it: each failure names
/// the profile and the `auth` key's JSON path, and says what to do; no password is ever in the text.
@Suite("password sources", .timeLimit(.minutes(1)))
struct PasswordSourceTests {
  /// A fresh folder with `profile.json` (`auth` as given) and the other files named, with their contents.
  func folder(auth: String, files: [String: String] = [:]) throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bp-auth-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    try #"{"version": 1, "auth": \#(auth), "desired": {"name": "x"}}"#.write(
      toFile: dir + "/profile.json", atomically: true, encoding: .utf8)
    for (name, text) in files { try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8) }
    return dir
  }

  func failure(_ source: SecretSource, field: String = "password", profile: String) -> String? {
    do {
      _ = try Secrets.read(source, field: field, profile: profile)
      return nil
    } catch {
      return "\(error)"
    }
  }

  @Test func anUnsetVariableIsNamedWithItsKeysPath() {
    let name = "BP_TEST_UNSET_\(UUID().uuidString.prefix(8))"
    #expect(
      failure(.environment(name), field: "newPassword", profile: "p.json")
        == "p.json: $.auth.newPasswordEnv names the environment variable \(name), which is not set (or is empty): "
        + "export \(name) with the password before running")
  }

  /// A password put where its variable's or file's name belongs passes the name check when it could be a
  /// name; when it then names nothing, the message points at the key without repeating it.
  @Test func aValueThatMayBeAPasswordIsNotRepeated() throws {
    let dir = try folder(auth: #"{"passwordFile": "Summer2024"}"#)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let profile = dir + "/profile.json"
    let variable = try #require(failure(.environment("Summer2024x\(UUID().uuidString.prefix(4))"), profile: "p.json"))
    #expect(
      variable.hasPrefix("p.json: $.auth.passwordEnv names an environment variable that is not set (or is empty): "),
      "\(variable)")
    #expect(!variable.contains("Summer2024"), "\(variable)")
    let file = try #require(failure(.file("Summer2024"), profile: profile))
    #expect(file.hasPrefix("\(profile): $.auth.passwordFile: there is no such password file in \(dir) "), "\(file)")
    #expect(!file.contains("Summer2024"), "\(file)")
    // A profile named without a folder (`apply site.json`) looks beside it: in the current directory.
    #expect(
      failure(.file("Summer2024"), profile: "site.json")?.hasPrefix(
        "site.json: $.auth.passwordFile: there is no such password file in the current directory ") == true)
    // A file that exists is named whatever its name: it is no password.
    try "\n".write(toFile: dir + "/Summer2024", atomically: true, encoding: .utf8)
    #expect(failure(.file("Summer2024"), profile: profile)?.contains("\(dir)/Summer2024 is empty") == true)
    #expect(SecretSourceName.mayShowVariable("BEACON_PASSWORD") && !SecretSourceName.mayShowVariable("beacon_pw"))
    #expect(SecretSourceName.mayShowVariable("SITE_2_PW") && SecretSourceName.mayShowVariable("SITE2PW"))
    // Capitals and digits of a KBeacon password's 8 to 16 characters without a `_`: as likely a password as a name.
    #expect(!SecretSourceName.mayShowVariable("A1B2C3D4E5F6A7B8") && !SecretSourceName.mayShowVariable("SUMMER2024"))
    #expect(!SecretSourceName.mayShowVariable("KBEACONSECUREKEY") && !SecretSourceName.mayShowVariable("PASSWORD"))
    #expect(SecretSourceName.mayShowVariable("PW") && SecretSourceName.mayShowVariable("KBEACONSITEPASSWORD"))
    #expect(SecretSourceName.mayShowFile("pw.txt") && SecretSourceName.mayShowFile("secrets/x"))
    #expect(SecretSourceName.mayShowFile("/etc/bp/site2") && SecretSourceName.mayShowFile("keys/site2.txt"))
    #expect(!SecretSourceName.mayShowFile("Summer.2024") && !SecretSourceName.mayShowFile("keys/pw.b64"))
    // Too short or too long for a KBeacon password: a name, shown.
    #expect(SecretSourceName.mayShowFile(".hidden") && SecretSourceName.mayShowFile("keys/kbeacon-pw.b64"))
    // Four characters, but 8 UTF-16 units and 16 UTF-8 bytes: a password's length as a device may count it.
    #expect(!SecretSourceName.mayShowFile("👍👍👍👍"))
    #expect(!SecretSourceName.mayShowFile("k9/Xa2bQ"))  // a `/` is no proof of a path: base64 passwords have them
    #expect(!SecretSourceName.mayShowFile("xQ/vTzkLpW+aBcDe") && !SecretSourceName.mayShowFile("open sesame.now"))
    // A hidden name leaves no part of itself in the message either: the folder named is the profile's.
    let nested = try #require(failure(.file("k9/Xa2bQ"), profile: profile))
    #expect(nested.hasPrefix("\(profile): $.auth.passwordFile: there is no such password file in \(dir) "), "\(nested)")
    #expect(!nested.contains("k9"), "\(nested)")
  }

  @Test func anEmptyPasswordFileIsCalledEmptyAndAMissingOneMissing() throws {
    let dir = try folder(auth: #"{"passwordFile": "pw.txt"}"#, files: ["pw.txt": "\n\n"])
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let profile = dir + "/profile.json"
    #expect(
      failure(.file("pw.txt"), profile: profile)
        == "\(profile): $.auth.passwordFile: the password file \(dir)/pw.txt is empty (its first line is the password)")
    #expect(
      failure(.file("gone.txt"), profile: profile)
        == "\(profile): $.auth.passwordFile: cannot read the password file: no such file: \(dir)/gone.txt")
    try "s3cret-from-file\nignored\n".write(toFile: dir + "/pw.txt", atomically: true, encoding: .utf8)
    #expect(try Secrets.read(.file("pw.txt"), profile: profile).value == "s3cret-from-file")
  }

  @Test func profileCheckWarnsAboutAVariableNotSetHere() throws {
    let name = "BP_TEST_UNSET_\(UUID().uuidString.prefix(8))"
    let dir = try folder(auth: #"{"passwordEnv": "\#(name)"}"#)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let profile = dir + "/profile.json"
    #expect(
      ProfileCheckCommand.passwordWarnings(try ProfileFiles.load(profile).profile.auth, profile: profile) == [
        "  warning: \(profile): $.auth.passwordEnv names the environment variable \(name), which is not set (or is "
          + "empty): export \(name) with the password before running (plan and apply on this machine would stop here)"
      ])
  }

  @Test func profileCheckWarnsAboutAPasswordItCannotReadHereAndShowsNoneItCan() throws {
    let dir = try folder(
      auth: #"{"passwordFile": "pw.txt", "newPasswordFile": "new.txt"}"#, files: ["pw.txt": "s3cret-current\n"])
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let profile = dir + "/profile.json"
    let warnings = ProfileCheckCommand.passwordWarnings(try ProfileFiles.load(profile).profile.auth, profile: profile)
    #expect(
      warnings == [
        "  warning: \(profile): $.auth.newPasswordFile: cannot read the password file: no such file: \(dir)/new.txt "
          + "(plan and apply on this machine would stop here)"
      ])
    #expect(!warnings.joined().contains("s3cret"))
  }
}
