import ArgumentParser
import BeaconCore
import Foundation
import Simulator
import Testing

@testable import BeaconProvisionCLI

/// Hostile-input review, "unescaped output": `sim serve`'s lines and ArgumentParser's error messages printed device- or
/// user-controlled text with its control characters raw. (Audit CSV on standard output: AuditTests'
/// AuditCSVControlCharacterTests.)
@Suite(.timeLimit(.minutes(1))) struct UnescapedOutputTests {
  static let hostile = "\u{1B}]0;pwned\u{07}\u{1B}[2J"
  static let shown = #"\u{1B}]0;pwned\u{07}\u{1B}[2J"#

  @Test func simServeLinesEscapeNames() throws {
    let fleet = try SimulatedFleet.decode(
      Data(
        #"""
        {"version": 1, "devices": [{"address": "DD:34:02:06:EE:01", "kind": "kbeaconPro", "name": "\u001b]0;pwned\u0007\u001b[2J", "system": {"model": 12, "batteryPercent": 90, "firmware": "5.22"}}]}
        """#.utf8))
    let device = try #require(fleet.devices.first)
    let serving = SimServeOutput.text(
      .advertising(adapter: "hci1", fleetAddress: device.address, device: device, extendedCommands: false))
    #expect(serving.contains("(kbeaconPro \"\(Self.shown)\") on hci1"), "\(serving)")
    let bootloader = SimServeOutput.text(
      .bootloaderAdvertising(adapter: "hci1", fleetAddress: device.address, name: Self.hostile, address: device.address)
    )
    #expect(bootloader.contains("advertising \"\(Self.shown)\" as"), "\(bootloader)")
    for line in [serving, bootloader] { #expect(!line.unicodeScalars.contains(where: TerminalText.isControl)) }
  }

  @Test func argumentParserErrorsEscapeWhatWasTyped() throws {
    do {
      _ = try BeaconProvision.parseAsRoot(["scan", "--" + Self.hostile])
      Issue.record("parsed")
    } catch {
      let text = try #require(BeaconProvision.errorText(for: error))
      #expect(text.contains(Self.shown), "\(text)")
      #expect(!text.unicodeScalars.contains { TerminalText.isControl($0) && $0 != "\n" }, "\(text.debugDescription)")
    }
    // Help is not an error: ArgumentParser prints it as it is.
    do {
      _ = try BeaconProvision.parseAsRoot(["--help"])
    } catch {
      #expect(BeaconProvision.errorText(for: error) == nil)
    }
  }
}
