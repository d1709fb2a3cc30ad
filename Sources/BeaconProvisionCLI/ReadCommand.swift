import ArgumentParser
import Fleet
import JSON
import KBeacon
import Profiles

/// `beacon-provision read ADDR`: a KBeacon's whole configuration as the device JSON (docs/protocols/kbeacon.md
/// §6.1, or §7 for legacy devices), pretty-printed with the device's key order; the read is recorded in the
/// fleet registry of the state directory.
struct ReadCommand: AsyncParsableCommand, LoggingCommand {
  static let configuration = CommandConfiguration(
    commandName: "read",
    abstract: "Print a KBeacon's full configuration as JSON.",
    discussion: """
      Connects, authenticates (password from --password-file, $BEACON_PASSWORD, or the factory default) and \
      reads common settings, advertising slots, triggers and sensors. Legacy (v1) KBeacons are detected \
      and read with the v1 messages.

      \(ExitStatus.kbeaconSession)
      """)

  @Argument(help: "The device address, AA:BB:CC:DD:EE:FF.") var address: String
  @OptionGroup var adapter: AdapterOptions
  @OptionGroup var peer: PeerAddressOptions
  @OptionGroup var passwordOptions: PasswordOptions
  @OptionGroup var gattCache: GATTCacheOptions
  @OptionGroup var journalLocation: JournalLocationOptions
  @OptionGroup var logging: LoggingOptions

  func run() async throws { try await execute { print($0) } }

  func execute(emit: @Sendable (String) -> Void) async throws {
    let target = try parseAddress(address)
    try RegistryAccess.checkShared(journalLocation)
    let config = try await KBeaconConnector.withSession(
      target, adapter: adapter.adapter, peer: peer, passwordOptions: passwordOptions, sections: .all,
      gattCache: gattCache.store(stateDirectory: StateDirectory.resolve(nil))
    ) { _, config in config }
    var root: JSONObject = ["address": .string(target.description), "generation": .string(config.generation.rawValue)]
    root["configuration"] = .object(config.deviceJSON)
    emit(JSONWriter.pretty(.object(root)))
    // Best effort, after the output: a registry that cannot be written only warns (`RegistryAccess`).
    await RegistryAccess.open(stateDirectory: StateDirectory.resolve(nil), location: journalLocation)?
      .read(address: target.description, configuration: KBeaconViews.view(of: config))
  }
}
