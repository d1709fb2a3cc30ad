import ArgumentParser
import KBeacon

/// `beacon-provision reset ADDR`: factory-reset a KBeacon's parameters (docs/protocols/kbeacon.md §6.7; `{"msg":"admin","stype":"reset"}`
/// on v2, `{"msg":"reset"}` on v1). The password is not part of the parameters [?].
struct ResetCommand: AsyncParsableCommand, LoggingCommand {
  static let configuration = CommandConfiguration(
    commandName: "reset", abstract: "Reset a KBeacon's settings to factory defaults.",
    discussion: ExitStatus.kbeaconSession)

  @Argument(help: "The device address.") var address: String
  @OptionGroup var adapter: AdapterOptions
  @OptionGroup var peer: PeerAddressOptions
  @OptionGroup var passwordOptions: PasswordOptions
  @OptionGroup var gattCache: GATTCacheOptions
  @OptionGroup var logging: LoggingOptions

  func run() async throws { try await execute { print($0) } }

  func execute(emit: @Sendable (String) -> Void) async throws {
    let target = try parseAddress(address)
    try await KBeaconConnector.withSession(
      target, adapter: adapter.adapter, peer: peer, passwordOptions: passwordOptions, sections: [.common],
      gattCache: gattCache.store(stateDirectory: StateDirectory.resolve(nil))
    ) { session, config in try await session.send(Command.reset(for: config.generation)) }
    emit("\(target): settings reset to factory defaults")
  }
}
