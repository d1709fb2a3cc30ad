import ArgumentParser
import BeaconCore
import Foundation
import KBeacon

/// `beacon-provision reset ADDR`: factory-reset a KBeacon's parameters (docs/protocols/kbeacon.md §6.7; `{"msg":"admin","stype":"reset"}`
/// on v2, `{"msg":"reset"}` on v1). The password is not part of the parameters [?].
///
/// A reset erases what a campaign wrote (slots, triggers, name) and the default adapter is the first real one,
/// so it is confirmed first: `--yes`, or an answer on a terminal; without a terminal and without `--yes` it is
/// refused before any link (a script must say what it means).
struct ResetCommand: AsyncParsableCommand, LoggingCommand {
  static let configuration = CommandConfiguration(
    commandName: "reset", abstract: "Reset a KBeacon's settings to factory defaults.",
    discussion: """
      Erases the device's slots, triggers, name and other settings. On a terminal the command asks first; \
      from a script, pass --yes (without it the command refuses, exit \(ExitStatus.usageCode)).

      \(ExitStatus.kbeaconSession)
      """)

  @Argument(help: "The device address.") var address: String
  @Flag(help: "Reset without asking (required when standard input is not a terminal).") var yes = false
  @OptionGroup var adapter: AdapterOptions
  @OptionGroup var peer: PeerAddressOptions
  @OptionGroup var passwordOptions: PasswordOptions
  @OptionGroup var gattCache: GATTCacheOptions
  @OptionGroup var logging: LoggingOptions

  func run() async throws {
    try await execute(confirm: Self.askOnTheTerminal, emit: { print($0) })
  }

  /// The operator's answer on a terminal, nil without one (standard input is not a terminal).
  static func askOnTheTerminal(_ target: BluetoothAddress) async -> String? {
    guard isatty(STDIN_FILENO) == 1 else { return nil }
    FileHandle.standardError.write(Data("Reset \(target) to factory defaults, erasing its settings? [y/N] ".utf8))
    // Off the cooperative pool: reading a terminal blocks. End of input is no.
    return (try? await BlockingIO.run { readLine() ?? "" }) ?? ""
  }

  /// `confirm(address)`: the operator's answer, or nil when nobody can be asked (no terminal).
  func execute(
    confirm: (BluetoothAddress) async -> String? = { _ in nil }, emit: @Sendable (String) -> Void
  ) async throws {
    let target = try parseAddress(address)
    if !yes {
      guard let answer = await confirm(target) else {
        throw CLIFailure(
          "reset erases \(target)'s settings (slots, triggers, name): pass --yes to confirm",
          exitCode: ExitStatus.usageCode)
      }
      guard ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased()) else {
        throw CLIFailure("\(target) was not reset")
      }
    }
    try await KBeaconConnector.withSession(
      target, adapter: adapter.adapter, peer: peer, passwordOptions: passwordOptions, sections: [.common],
      gattCache: gattCache.store(stateDirectory: StateDirectory.resolve(nil))
    ) { session, config in try await session.send(Command.reset(for: config.generation)) }
    emit("\(target): settings reset to factory defaults")
  }
}
