import ArgumentParser
import Testing

@testable import BeaconProvisionCLI

/// Developer guide, naming rules, "Command types": every command is a type `XCommand`, `X` its command path
/// in upper camel case (`dfu simulate-serial` is `DFUSimulateSerialCommand`), and sets its `commandName`
/// itself, so renaming a type can never change what a user types (ArgumentParser otherwise derives the
/// name from the type: `ScanCommand` would become `scan-command`). Walks the whole tree, hidden commands too.
@Suite(.timeLimit(.minutes(1))) struct CommandNamingTests {
  /// Words written in capitals in type names (acronyms), as everywhere else in the code.
  static let acronyms: Set<String> = ["ble", "dfu", "gatt"]

  /// The type name the rule asks for the command at `path` (`"beacon-provision dfu ble"` → `DFUBLECommand`).
  static func expectedTypeName(_ path: String) -> String {
    let words = path.split(separator: " ").dropFirst().flatMap { $0.split(separator: "-") }.map(String.init)
    return words.map { acronyms.contains($0) ? $0.uppercased() : $0.prefix(1).uppercased() + $0.dropFirst() }
      .joined() + "Command"
  }

  @Test func everyCommandTypeIsNamedAfterItsPath() {
    let all = ExitStatusHelpTests.commands(under: BeaconProvision.self).dropFirst()  // not the root
    #expect(all.count >= 45)
    for (path, command) in all {
      #expect(String(describing: command) == Self.expectedTypeName(path), "\(path)")
    }
  }

  @Test func everyCommandSetsItsOwnName() {
    for (path, command) in ExitStatusHelpTests.commands(under: BeaconProvision.self).dropFirst() {
      #expect(command.configuration.commandName != nil, "\(path) takes its name from its type")
    }
  }

  @Test func theRuleSpellsAcronymsInCapitals() {
    #expect(Self.expectedTypeName("beacon-provision dfu simulate-serial") == "DFUSimulateSerialCommand")
    #expect(Self.expectedTypeName("beacon-provision radio gatt") == "RadioGATTCommand")
    #expect(Self.expectedTypeName("beacon-provision monitor spool list") == "MonitorSpoolListCommand")
  }
}
