import BeaconCore
import Foundation
import KBeacon
import Logging
import Simulator

/// Opens an authenticated `KBeaconSession` for a command (docs/protocols/kbeacon.md §3): connect through the
/// chosen adapter with the device's address type (`--address-type`, else learned from a short scan:
/// `PeerAddressOptions`), the GATT client, the KBeacon link set-up, auth with the clock set, the initial
/// read. The simulated fleet is reached through the same `Central.connect` as a live adapter.
struct KBeaconConnector {
  var adapter: AdapterChoice?
  var password: KBeaconPassword
  var peer: PeerAddressOptions
  var timeouts = KBeaconSession.Timeouts()
  /// Where the device's FEA0 handles are remembered (`GATTCacheOptions`); nil discovers the whole table.
  var gattCache: (any GATTCacheStore)? = nil

  /// Exit code for a wrong password, distinct so scripts can stop instead of retrying (devices may lock out).
  static let wrongPasswordExitCode: Int32 = 3

  static let environment = KBeaconSession.Environment(
    randomBytes: { n in (0..<n).map { _ in UInt8.random(in: 0...255) } },
    now: { UInt32(clamping: Int(Date().timeIntervalSince1970)) })

  /// Connects and authenticates; errors are the library's own (`LinkError`, `KBeaconAuthenticationError`,
  /// `KBeaconError`, `GATTError`), for callers that classify them (the fleet campaign). The central comes back
  /// too, for the caller to keep until the session is closed: the simulated adapter's fleet saves a device's
  /// changes through it, and with the central let go once the link was up, a simulated `reset` was never saved.
  func connect(
    _ address: BluetoothAddress, sections: ConfigSections = [.common, .slots, .triggers]
  ) async throws -> (KBeaconSession, KBeaconConfiguration, any Central) {
    let central = try await CentralFactory.make(adapter, scanBackend: peer.scanBackend.value)
    let type = try await peer.resolve(address, on: central)
    let log = CLILog.logger("kbeacon")
    log.info("connecting", metadata: ["device": "\(address)", "type": "\(type)", "adapter": "\(central.name)"])
    let bearer = try await central.connect(to: address, type: type, timeout: KBeaconTimeouts.connect)
    log.debug("link up; authenticating", metadata: ["device": "\(address)"])
    do {
      let (session, config) = try await KBeaconSession.connect(
        client: GATTClient(bearer: bearer), password: password, environment: Self.environment, timeouts: timeouts,
        readSections: sections, settle: settle,
        cache: gattCache.map { ($0, GATTCacheKey(address: address, type: type)) })
      if let outcome = (await session.link as? GATTKBeaconLink)?.cacheOutcome {
        log.info("gatt cache", metadata: ["device": "\(address)", "outcome": "\(outcome.rawValue)"])
      }
      log.info("authenticated", metadata: ["device": "\(address)", "generation": "\(config.generation.rawValue)"])
      return (session, config, central)
    } catch {
      log.info("session failed", metadata: ["device": "\(address)", "error": "\(error)"])
      throw error
    }
  }

  /// The settle time before configuring (§3 step 7): KKM's 1 s on a live adapter, none in the simulator.
  var settle: Duration {
    if case .simulated = adapter { return .zero }
    return KBeaconTimeouts.settleBeforeConfiguration
  }

  /// `connect` for a command: every error becomes a one-line `CLIFailure` naming the device.
  func open(_ address: BluetoothAddress, sections: ConfigSections = [.common, .slots, .triggers]) async throws
    -> (KBeaconSession, KBeaconConfiguration, any Central)
  {
    do {
      return try await connect(address, sections: sections)
    } catch let error as KBeaconAuthenticationError {
      throw CLIFailure("\(address): \(error)", exitCode: error == .wrongPassword ? Self.wrongPasswordExitCode : 1)
    } catch let failure as CLIFailure {
      throw failure
    } catch let error as LinkError where error.code == .connectTimeout && peer.override != nil {
      // A connect to the wrong address type is never answered (Core v5.4 Vol 6 Part B §1.3): say which type
      // was tried and how to try the other, instead of a bare timeout after 15 s.
      let tried = peer.override!
      let other: AddressType = tried == .public ? .random : .public
      throw CLIFailure(
        "\(address): \(error) — connected to as a \(tried) address (--address-type \(tried)); if it advertises a "
          + "\(other) address, give --address-type \(other), or leave the option out to learn the type from a scan")
    } catch {
      throw CLIFailure("\(address): \(error)")
    }
  }
}

extension KBeaconConnector {
  /// One command's whole visit to one device: reads the password (`--password-file` off the cooperative
  /// pool), opens an authenticated session (`open`), runs `body` on it and closes the session whatever
  /// happens; an error from `body` becomes a one-line failure naming the device.
  static func withSession<T>(
    _ target: BluetoothAddress, adapter: AdapterChoice?, peer: PeerAddressOptions, passwordOptions: PasswordOptions,
    sections: ConfigSections, gattCache: (any GATTCacheStore)? = nil,
    _ body: (KBeaconSession, KBeaconConfiguration) async throws -> T
  ) async throws -> T {
    let connector = KBeaconConnector(
      adapter: adapter, password: try await passwordOptions.resolved(), peer: peer, gattCache: gattCache)
    CLILog.logger("kbeacon").debug(
      "password", metadata: ["device": "\(target)", "source": "\(passwordOptions.source())"])
    let (session, config, central) = try await connector.open(target, sections: sections)
    // The central outlives the session (`connect`): the simulated fleet saves through it.
    defer { withExtendedLifetime(central) {} }
    let result: T
    do {
      result = try await body(session, config)
    } catch {
      await session.close()
      throw CLIFailure("\(target): \(error)")
    }
    await session.close()
    return result
  }
}

/// A command's argument naming one device.
func parseAddress(_ text: String) throws -> BluetoothAddress {
  guard let address = BluetoothAddress(text) else {
    throw CLIFailure("'\(text)' is not a Bluetooth address (AA:BB:CC:DD:EE:FF)", exitCode: ExitStatus.usageCode)
  }
  return address
}
