import BeaconCore
import Foundation
import KBeacon
import NordicDFU
import Profiles

/// Opens KBeacon configuration sessions through any `Central` — BlueZ or the simulator, the same code:
/// connect (L2CAP CID 4), GATT client, the KBeacon link of docs/protocols/kbeacon.md §3, then authenticate (§5).
public struct KBeaconOpener: SessionOpener {
  public var central: any Central
  public var connectTimeout: Duration
  public var timeouts: KBeaconSession.Timeouts
  /// Where each device's FEA0 handles are remembered between visits (`GATTClient.discover(keeping:…)`);
  /// nil discovers the whole table on every visit.
  public var gattCache: (any GATTCacheStore)?

  /// The cache an opener made without an explicit one uses (this one and `TextStreamCommandOpener`): a
  /// command binds its `--no-gatt-cache` choice here around its run (as `StateDirectory.override` scopes the
  /// state directory), so every opener its campaign makes shares the state directory's file without each
  /// construction site passing it on.
  @TaskLocal public static var ambientGATTCache: (any GATTCacheStore)?

  public init(
    central: any Central, connectTimeout: Duration = .seconds(15), timeouts: KBeaconSession.Timeouts = .init(),
    gattCache: (any GATTCacheStore)? = KBeaconOpener.ambientGATTCache
  ) {
    self.central = central
    self.connectTimeout = connectTimeout
    self.timeouts = timeouts
    self.gattCache = gattCache
  }

  /// A live environment: OS randomness for the auth challenge, the wall clock for the device clock set.
  public static let environment = KBeaconSession.Environment(
    randomBytes: { n in
      var g = SystemRandomNumberGenerator()
      return (0..<n).map { _ in UInt8.random(in: 0...255, using: &g) }
    },
    now: { UInt32(clamping: Int(Date().timeIntervalSince1970)) })

  public func open(_ target: Target, password: Secret) async throws -> any ConfigurationSession {
    try await KBeaconConfigurationSession(session: openSession(target, password: password))
  }

  /// The authenticated `KBeaconSession` itself, for commands beyond configuration (ring, history, …).
  public func openSession(_ target: Target, password: Secret) async throws -> KBeaconSession {
    let pass = try KBeaconPassword(password.value)
    let bearer = try await central.connect(to: target.address, type: target.addressType, timeout: connectTimeout)
    let client = GATTClient(bearer: bearer)
    let cache = gattCache.map { ($0, GATTCacheKey(address: target.address, type: target.addressType)) }
    do {
      let link = try await GATTKBeaconLink.open(client, cache: cache)
      let session = KBeaconSession(link: link, environment: Self.environment, timeouts: timeouts)
      do {
        _ = try await session.authenticate(password: pass)
      } catch {
        await session.close()
        await link.forgetCacheAfterFailure(error, cache: cache)
        throw error
      }
      return session
    } catch {
      let bootloader = await BootloaderAtAddress.answered(client, instead: error)
      await client.close()
      throw bootloader ?? error
    }
  }
}

/// A link opened for a KBeacon reached a Nordic Secure DFU bootloader instead: no configuration service, and a
/// DFU Control Point (`DFUGATT`; docs/protocols/nordic-dfu.md §2.1 — an application's own FE59 service has only
/// its buttonless characteristic). The device's own bootloader, or its neighbour's (address − 1: a no-bond
/// bootloader comes up at its application's address + 1) after an update that did not finish. It goes back
/// to its application when its inactivity timeout passes, so it is worth another attempt
/// (`FailureKind.bootloaderAtAddress`).
public struct BootloaderAtAddress: Error, ClassifiedFailure, CustomStringConvertible {
  public var failureKind: FailureKind { .bootloaderAtAddress }
  public var description: String {
    "not ready: a Secure DFU bootloader answers at this address, not the KBeacon: the device's own, or its "
      + "neighbour's (address − 1) after an unfinished update; it leaves after its inactivity timeout"
  }

  /// The error to throw instead of `error` when the link's discovery found a bootloader; nil otherwise.
  static func answered(_ client: GATTClient, instead error: any Error) async -> BootloaderAtAddress? {
    guard case KBeaconError.notSupported = error,
      await client.database?.characteristic(DFUGATT.controlPoint, inService: DFUGATT.service) != nil
    else { return nil }
    return BootloaderAtAddress()
  }
}

/// `ConfigurationSession` over an authenticated `KBeaconSession`.
public struct KBeaconConfigurationSession: ConfigurationSession {
  public let session: KBeaconSession

  public init(session: KBeaconSession) { self.session = session }

  public func readConfiguration(_ sections: ConfigSections) async throws -> DeviceConfigView {
    KBeaconViews.view(of: try await session.readConfiguration(sections: sections.union(.common)))
  }

  public func write(_ patch: DeviceConfigView) async throws {
    try await session.write(KBeaconViews.configuration(of: patch))
  }

  public func close() async { await session.close() }
}

extension KBeaconError: ClassifiedFailure {
  /// Busy and timeouts are worth another attempt; a device that rejects a value will reject it again.
  public var failureKind: FailureKind {
    switch self {
    case .busy, .timeout: .transient
    case .deviceRejected(let cause): cause == .busy ? .transient : .permanent
    default: .permanent
    }
  }
}

extension KBeaconAuthenticationError: ClassifiedFailure {
  public var failureKind: FailureKind {
    switch self {
    case .wrongPassword: .wrongPassword
    default: .permanent
    }
  }
}
