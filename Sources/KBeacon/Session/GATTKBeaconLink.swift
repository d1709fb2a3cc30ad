import BeaconCore

/// A `KBeaconLink` over a GATT client (docs/protocols/kbeacon.md §2, §3): the same code talks to real hardware
/// (BlueZ L2CAP bearer) and to the simulated fleet (socketpair bearer).
///
/// `open` runs the link-level part of the §3 connect sequence: exchange MTU (the client offers 247;
/// the SDK asks 251), discover the database, find FEA0's characteristics and enable FEA2 notifications.
/// The SDK's fixed inter-step delays (100/200/300 ms) only pace Android's GATT queue; over our sequential
/// ATT client each step already waits for the previous one, so none are added [I].
public struct GATTKBeaconLink: KBeaconLink {
  public let client: GATTClient
  public let peer: BluetoothAddress
  public let writeCharacteristic: GATTCharacteristic
  public let notifyCharacteristic: GATTCharacteristic
  public let indicateCharacteristic: GATTCharacteristic?
  /// How the handles were found when a GATT cache was given (`open(_:cache:)`), else nil.
  public let cacheOutcome: GATTCacheOutcome?
  private let notifications: AsyncStream<[UInt8]>

  /// A GATT cache and this device's entry name in it.
  public typealias Cache = (store: any GATTCacheStore, key: GATTCacheKey)

  /// With `cache`, the FEA0 handles come from it when it still holds (`GATTClient.openThroughCache`: the
  /// Database Hash read, or FEA0's handles checked by type); only FEA0 is kept. If FEA1/FEA2 are missing
  /// from the cached table, or the FEA2 CCCD write on cached handles is refused as Invalid Handle or
  /// Attribute Not Found, the entry is dropped and the table discovered again on the same link, once [I].
  public static func open(_ client: GATTClient, cache: Cache? = nil) async throws -> GATTKBeaconLink {
    _ = try await client.exchangeMTU()
    guard let cache else { return try await open(client, database: try await client.discover(), outcome: nil) }
    return try await client.openThroughCache(
      keeping: [KBeaconGATT.service], cache: cache.store, key: cache.key,
      isStale: lacksService
    ) { database, outcome in try await open(client, database: database, outcome: outcome) }
  }

  /// The error `open(_:database:outcome:)` throws when the database has no FEA0 with FEA1/FEA2.
  private static func lacksService(_ error: any Error) -> Bool {
    guard case .notSupported? = error as? KBeaconError else { return false }
    return true
  }

  /// The link on `database`: FEA0's characteristics, FEA2 notifications on.
  private static func open(
    _ client: GATTClient, database: GATTDatabase, outcome: GATTCacheOutcome?
  ) async throws -> GATTKBeaconLink {
    guard let write = database.characteristic(KBeaconGATT.write, inService: KBeaconGATT.service),
      let notify = database.characteristic(KBeaconGATT.notify, inService: KBeaconGATT.service)
    else {
      throw KBeaconError.notSupported("no KBeacon configuration service (FEA0 with FEA1/FEA2)")
    }
    let stream = try await client.subscribe(to: notify)
    return GATTKBeaconLink(
      client: client, peer: client.bearer.peer, writeCharacteristic: write, notifyCharacteristic: notify,
      indicateCharacteristic: database.characteristic(KBeaconGATT.indicate, inService: KBeaconGATT.service),
      cacheOutcome: outcome, notifications: stream)
  }

  public var attMTU: Int { get async { await client.mtu } }

  /// After a visit on cached handles failed (anything but a refused password), the entry is dropped so
  /// the next visit discovers: a device without a Database Hash whose FEA1 properties changed under the
  /// same handles would otherwise time out on every visit [I].
  public func forgetCacheAfterFailure(_ error: any Error, cache: Cache?) async {
    guard let cache, cacheOutcome == .hit, !(error is KBeaconAuthenticationError) else { return }
    await cache.store.drop(cache.key)
  }

  /// Write Command when FEA1 allows it (as iOS v2 does), else Write Request (§2 recommendation).
  public func writeFrame(_ frame: [UInt8]) async throws {
    if writeCharacteristic.properties.contains(.writeWithoutResponse) {
      try await client.writeWithoutResponse(frame, to: writeCharacteristic.valueHandle)
    } else {
      try await client.write(frame, to: writeCharacteristic.valueHandle)
    }
  }

  public func frames() async throws -> AsyncThrowingStream<[UInt8], any Error> {
    Self.throwing(notifications, peer: peer)
  }

  /// CCCD `02 00` when FEA3 indicates, else `01 00` (§2).
  public func indications() async throws -> AsyncThrowingStream<[UInt8], any Error> {
    guard let fea3 = indicateCharacteristic else { throw KBeaconError.notSupported("FEA3 sensor/trigger events") }
    let stream = await client.notifications(for: fea3.valueHandle)
    let indicate = fea3.properties.contains(.indicate)
    try await client.configure(fea3, notify: !indicate, indicate: indicate)
    return Self.throwing(stream, peer: peer)
  }

  public func close() async { await client.close() }

  /// The client's notification stream ends quietly when the link drops; sessions need that as an error.
  static func throwing(_ stream: AsyncStream<[UInt8]>, peer: BluetoothAddress) -> AsyncThrowingStream<
    [UInt8], any Error
  > {
    AsyncThrowingStream { continuation in
      let task = Task {
        for await value in stream { continuation.yield(value) }
        continuation.finish(throwing: LinkError(.disconnected, peer: peer))
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }
}

extension KBeaconSession {
  /// Connects the KBeacon way (§3, §16): link set-up over `client`, authentication with the clock set,
  /// then the initial configuration read. Returns the session and the configuration.
  public static func connect(
    client: GATTClient, password: KBeaconPassword, environment: Environment, timeouts: Timeouts = Timeouts(),
    readSections: ConfigSections = [.common, .slots, .triggers], settle: Duration = .zero,
    cache: GATTKBeaconLink.Cache? = nil
  ) async throws -> (KBeaconSession, KBeaconConfiguration) {
    let link = try await GATTKBeaconLink.open(client, cache: cache)
    let session = KBeaconSession(link: link, environment: environment, timeouts: timeouts)
    do {
      try await session.authenticate(password: password)
      // KKM advises ~1 s between connecting and configuring (§3 step 7); real hardware passes
      // `KBeaconTimeouts.settleBeforeConfiguration`, the simulator nothing.
      if settle > .zero { try await Task.sleep(for: settle) }
      return (session, try await session.readConfiguration(sections: readSections))
    } catch {
      await session.close()
      await link.forgetCacheAfterFailure(error, cache: cache)
      throw error
    }
  }
}
