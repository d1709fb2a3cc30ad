import ArgumentParser

/// `beacon-provision radio …` (hidden): low-level checks of the live BlueZ layer on real controllers,
/// used by the VM tier (scripts/vm/scenarios) and for field debugging. Not part of the operator surface.
struct RadioCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "radio",
    abstract: "Low-level radio checks on a BlueZ adapter (scan, advertise, L2CAP).",
    discussion: ExitStatus.group,
    shouldDisplay: false,
    subcommands: [
      RadioScanCommand.self, RadioAdvertiseCommand.self, RadioListenCommand.self, RadioConnectCommand.self,
      RadioGATTCommand.self,
    ])
}
