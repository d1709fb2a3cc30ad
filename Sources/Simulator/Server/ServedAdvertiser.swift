import BeaconCore
import BlueZ

/// The advertising side of a served device on one controller: `HCIAdvertiser` to (re)start advertising,
/// plus in-place updates for rotating frames (Core v5.4 Vol 4 Part E §7.8.7: advertising data may change
/// while advertising is enabled).
///
/// Why "re-announce": a BlueZ `btvirt` controller reports an advertiser to a scanner only when one side
/// enables (advertising or scanning), never periodically. A re-announce is Advertising Enable off then on,
/// back to back, so scanners get a report with the current data. While advertising is off a central's LE
/// Create Connection fails at once (0x3E) — and the 6.1 kernel then leaves the L2CAP connect hanging until
/// its timeout — so that gap is kept to one command round trip, and `ServedDevice` re-announces
/// connectable devices less often.
final class ServedAdvertiser: Sendable {
  private let advertiser: HCIAdvertiser
  /// A second HCI socket for the in-place legacy commands `HCIAdvertiser` does not expose.
  private let socket: HCISocket

  init(adapter: Adapter) async throws {
    advertiser = try await HCIAdvertiser(adapter: adapter)
    do {
      socket = try HCISocket(adapter: adapter)
    } catch {
      advertiser.close()
      throw error
    }
  }

  var usesExtendedCommands: Bool { advertiser.usesExtendedCommands }

  /// Programs everything (parameters, data, scan response) and enables advertising.
  func start(_ settings: AdvertisingSettings) async throws { try await advertiser.start(settings) }

  /// Switches to the next PDU's data; with `reannounce`, toggles advertising so scanners report it.
  /// [I] With extended commands the update happens only on re-announce, as a full restart.
  func update(_ settings: AdvertisingSettings, reannounce: Bool) async throws {
    if advertiser.usesExtendedCommands {
      if reannounce { try await advertiser.start(settings) }
      return
    }
    try await socket.run(.leSetAdvertisingData(settings.advertisingData))
    guard reannounce else { return }
    try await socket.run(.leSetAdvertisingEnable(false), ignoring: [.commandDisallowed])
    try await socket.run(.leSetAdvertisingEnable(true), ignoring: [.commandDisallowed])
  }

  func stop() async throws { try await advertiser.stop() }

  func close() {
    socket.close()
    advertiser.close()
  }
}
