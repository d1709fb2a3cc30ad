import ArgumentParser
import Testing

@testable import BeaconProvisionCLI

/// Every option given in seconds rejects NaN, infinities, negatives and values too large for a `Duration`
/// in milliseconds with an error naming the option — before `run()` could turn them into a trap
/// (`Int(1e300 * 1000)`). Nothing the user types may crash the tool.
@Suite("Seconds options", .timeLimit(.minutes(2))) struct SecondsOptionTests {
  static let address = "C0:11:22:33:44:55"

  /// A command line, and the option in it that takes seconds.
  struct Case: CustomTestStringConvertible, Sendable {
    var arguments: [String]
    var option: String
    var zeroAllowed = false
    var testDescription: String { (arguments + [option]).joined(separator: " ") }
  }

  static let cases: [Case] = [
    Case(arguments: ["scan"], option: "--duration"),
    Case(arguments: ["scan"], option: "--window"),
    Case(arguments: ["radio", "scan"], option: "--duration"),
    Case(arguments: ["radio", "advertise"], option: "--duration", zeroAllowed: true),
    Case(arguments: ["radio", "listen"], option: "--timeout"),
    Case(arguments: ["radio", "connect", address, "0a00"], option: "--timeout"),
    Case(arguments: ["radio", "gatt", address], option: "--timeout"),
    Case(arguments: ["gatt", "services", address], option: "--connect-timeout"),
    Case(arguments: ["sim", "serve", "--adapter", "hci1"], option: "--duration"),
    Case(arguments: ["sim", "serve", "--adapter", "hci1"], option: "--reannounce-connectable"),
    Case(arguments: ["apply", "profile.json"], option: "--retry-delay", zeroAllowed: true),
    Case(arguments: ["apply", "profile.json"], option: "--scan"),
    Case(arguments: ["dfu", "update", "--package", "p.zip"], option: "--timeout"),
    Case(arguments: ["dfu", "update", "--package", "p.zip"], option: "--retry-delay", zeroAllowed: true),
    Case(arguments: ["dfu", "update", "--package", "p.zip"], option: "--reconnect-delay", zeroAllowed: true),
    Case(arguments: ["dfu", "ble", "--device", address, "--package", "p.zip"], option: "--timeout"),
    Case(arguments: ["dfu", "serial", "--port", "/dev/null", "--package", "p.zip"], option: "--timeout"),
    Case(arguments: ["dfu", "serial", "--port", "/dev/null", "--package", "p.zip"], option: "--ready-timeout"),
    Case(
      arguments: ["dfu", "serial", "--port", "/dev/null", "--package", "p.zip"], option: "--reconnect-delay",
      zeroAllowed: true),
  ]

  /// Every option is wired to `SecondsOption.validate`: a sensible value parses, NaN (which compares false to
  /// everything) and — unless allowed — zero are refused naming the option. The whole range of hostile
  /// values is `validateRefusesEveryHostileValue`'s: a parse runs swift-argument-parser's debug validation of
  /// the whole command tree, and eight of them per option (240 parses) held both cooperative threads for
  /// tens of seconds under ThreadSanitizer, starving every test that waited on a timer.
  @Test(arguments: cases) func hostileSecondsAreAClearErrorNamingTheOption(_ c: Case) throws {
    // A sensible value parses, so the failures below are about the value alone.
    _ = try BeaconProvision.parseAsRoot(c.arguments + [c.option, "1.5"])
    for value in ["nan"] + (c.zeroAllowed ? [] : ["0"]) {
      do {
        _ = try BeaconProvision.parseAsRoot(c.arguments + ["\(c.option)=\(value)"])
        Issue.record("\(c.option) \(value) was accepted")
      } catch {
        let message = BeaconProvision.message(for: error)
        #expect(message.contains(c.option), "\(c.option) \(value): \(message)")
        #expect(message.contains("seconds"), "\(c.option) \(value): \(message)")
      }
    }
  }

  @Test func validateRefusesEveryHostileValue() throws {
    for zeroAllowed in [false, true] {
      for value in [Double.nan, .infinity, -.infinity, 1e300, -1, -0.001] + (zeroAllowed ? [] : [0]) {
        #expect(throws: ValidationError.self, "\(value)") {
          try SecondsOption.validate(value, "--some-timeout", zeroAllowed: zeroAllowed)
        }
      }
      #expect(throws: Never.self) { try SecondsOption.validate(1.5, "--some-timeout", zeroAllowed: zeroAllowed) }
    }
    #expect(throws: Never.self) { try SecondsOption.validate(0, "--some-timeout", zeroAllowed: true) }
  }

  @Test func aYearIsTheLongestAndConvertsExactly() throws {
    // 366 days (the limit written in SecondsOption) is accepted; a second more is not.
    _ = try BeaconProvision.parseAsRoot(["scan", "--duration", "31622400"])
    #expect(throws: (any Error).self) { try BeaconProvision.parseAsRoot(["scan", "--duration", "31622401"]) }
    #expect(SecondsOption.duration(31_622_400) == .seconds(31_622_400))
    #expect(SecondsOption.duration(0.0015) == .milliseconds(2))
  }

  @Test func radioListenRefusesANegativeCount() {
    // `0..<count` traps for a negative count.
    #expect(throws: (any Error).self) { try BeaconProvision.parseAsRoot(["radio", "listen", "--count=-1"]) }
  }
}
