import ArgumentParser
import KBeacon

/// `beacon-provision read ADDR`: a KBeacon's whole configuration as the device JSON (kbeacon-protocol.md
/// §6.1, or §7 for legacy devices), pretty-printed with the device's key order.
struct ReadCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "read",
    abstract: "Print a KBeacon's full configuration as JSON.",
    discussion: """
      Connects, authenticates (password from --password-file, $BEACON_PASSWORD, or the factory default) and \
      reads common settings, advertising slots, triggers and sensors. Legacy (v1) KBeacons are detected \
      and read with the v1 messages.
      """)

  @Argument(help: "The device address, AA:BB:CC:DD:EE:FF.") var address: String
  @OptionGroup var adapter: AdapterOptions
  @OptionGroup var passwordOptions: PasswordOptions

  func run() async throws { try await execute { print($0) } }

  func execute(emit: @Sendable (String) -> Void) async throws {
    let target = try parseAddress(address)
    let connector = KBeaconConnector(adapter: adapter.adapter, password: try passwordOptions.resolve())
    let (session, config) = try await connector.open(target, sections: .all)
    await session.close()
    var root: JSONObject = ["address": .string(target.description), "generation": .string(config.generation.rawValue)]
    root["configuration"] = .object(config.deviceJSON)
    emit(JSONWriter.pretty(.object(root)))
  }
}

/// `beacon-provision ring ADDR`: make a KBeacon beep/flash (§6.7). Real tags keep ringing only while a
/// central stays connected (§14 item 6), so the command holds the link for the ring time.
struct RingCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ring", abstract: "Make a KBeacon beep or flash its LED.")

  @Argument(help: "The device address.") var address: String
  @Option(help: "How long to ring, in milliseconds.") var milliseconds = 3000
  @Option(help: "ringType: v2 bitmask 1 beep, 2 LED, 4 vibration (v1 firmware: 0 LED, 1 beep, 2 both).") var type = 3
  @OptionGroup var adapter: AdapterOptions
  @OptionGroup var passwordOptions: PasswordOptions

  func validate() throws {
    guard (1...600_000).contains(milliseconds) else { throw ValidationError("--milliseconds must be 1…600000") }
  }

  func run() async throws { try await execute(holdLink: true) { print($0) } }

  func execute(holdLink: Bool = false, emit: @Sendable (String) -> Void) async throws {
    let target = try parseAddress(address)
    let connector = KBeaconConnector(adapter: adapter.adapter, password: try passwordOptions.resolve())
    let (session, _) = try await connector.open(target, sections: [.common])
    do {
      try await session.send(.ring(milliseconds: milliseconds, type: type, ledOn: nil, ledOff: nil))
      if holdLink { try await Task.sleep(for: .milliseconds(milliseconds)) }
    } catch {
      await session.close()
      throw CLIFailure("\(target): \(error)")
    }
    await session.close()
    emit("\(target): ringing for \(milliseconds) ms")
  }
}

/// `beacon-provision reset ADDR`: factory-reset a KBeacon's parameters (§6.7; `{"msg":"admin","stype":"reset"}`
/// on v2, `{"msg":"reset"}` on v1). The password is not part of the parameters [?].
struct ResetCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "reset", abstract: "Reset a KBeacon's settings to factory defaults.")

  @Argument(help: "The device address.") var address: String
  @OptionGroup var adapter: AdapterOptions
  @OptionGroup var passwordOptions: PasswordOptions

  func run() async throws { try await execute { print($0) } }

  func execute(emit: @Sendable (String) -> Void) async throws {
    let target = try parseAddress(address)
    let connector = KBeaconConnector(adapter: adapter.adapter, password: try passwordOptions.resolve())
    let (session, config) = try await connector.open(target, sections: [.common])
    do {
      try await session.send(Command.reset(for: config.generation))
    } catch {
      await session.close()
      throw CLIFailure("\(target): \(error)")
    }
    await session.close()
    emit("\(target): settings reset to factory defaults")
  }
}
