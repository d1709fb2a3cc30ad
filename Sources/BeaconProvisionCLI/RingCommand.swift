import ArgumentParser
import KBeacon

/// `beacon-provision ring ADDR`: make a KBeacon beep/flash (docs/protocols/kbeacon.md §6.7). Real tags keep ringing only while a
/// central stays connected (§14 item 6), so the command holds the link for the ring time.
struct RingCommand: AsyncParsableCommand, LoggingCommand {
  static let configuration = CommandConfiguration(
    commandName: "ring", abstract: "Make a KBeacon beep or flash its LED.",
    discussion: ExitStatus.kbeaconSession)

  @Argument(help: "The device address.") var address: String
  @Option(help: "How long to ring, in milliseconds.") var milliseconds = 3000
  @Option(help: "ringType: v2 bitmask 1 beep, 2 LED, 4 vibration (v1 firmware: 0 LED, 1 beep, 2 both).") var type = 3
  @OptionGroup var adapter: AdapterOptions
  @OptionGroup var peer: PeerAddressOptions
  @OptionGroup var passwordOptions: PasswordOptions
  @OptionGroup var gattCache: GATTCacheOptions
  @OptionGroup var logging: LoggingOptions

  func validate() throws {
    guard (1...600_000).contains(milliseconds) else { throw ValidationError("--milliseconds must be 1…600000") }
  }

  func run() async throws { try await execute(holdLink: true) { print($0) } }

  func execute(holdLink: Bool = false, emit: @Sendable (String) -> Void) async throws {
    let target = try parseAddress(address)
    try await KBeaconConnector.withSession(
      target, adapter: adapter.adapter, peer: peer, passwordOptions: passwordOptions, sections: [.common],
      gattCache: gattCache.store(stateDirectory: StateDirectory.resolve(nil))
    ) { session, _ in
      try await session.send(.ring(milliseconds: milliseconds, type: type))
      if holdLink { try await Task.sleep(for: .milliseconds(milliseconds)) }
    }
    emit("\(target): ringing for \(milliseconds) ms")
  }
}
