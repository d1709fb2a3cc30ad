import BeaconCore

/// A `TextStreamLink` over a GATT client: the same code talks to real devices (BlueZ L2CAP bearer) and to
/// the simulated fleet (socketpair bearer).
///
/// `open` sets the link up as the Tertium libraries do before `TxRxDeviceReady`: exchange MTU, discover,
/// find the profile's service (detected from the database, or the one asked for), subscribe to Tx. The
/// profile's extra characteristics (ACKme SetMode, Zhaga Event) are looked up and reported, never written
/// or subscribed to [I].
///
/// With a GATT cache the discovery is the cached one when it still holds, keeping only the known
/// text-stream services (`GATTClient.openThroughCache`, as the KBeacon link does); cached handles that the
/// device no longer has (no Rx/Tx there, or the Tx CCCD write refused as Invalid Handle or Attribute Not
/// Found) drop the entry and the table is discovered again on the same link, once.
public struct GATTTextStreamLink: TextStreamLink {
  public let client: GATTClient
  public let peer: BluetoothAddress
  public let profile: TextStreamProfile
  public let rxCharacteristic: GATTCharacteristic
  public let txCharacteristic: GATTCharacteristic
  /// The extra characteristics the device has, by role.
  public let extras: [TextStreamProfile.Extra.Role: GATTCharacteristic]
  private let stream: AsyncStream<[UInt8]>

  /// A GATT cache and this device's entry name in it.
  public typealias Cache = (store: any GATTCacheStore, key: GATTCacheKey)

  /// - Parameter profile: the profile to use; nil detects it from the discovered services.
  public static func open(
    _ client: GATTClient, profile: TextStreamProfile? = nil, cache: Cache? = nil
  ) async throws -> GATTTextStreamLink {
    _ = try await client.exchangeMTU()
    guard let cache else { return try await open(client, profile: profile, database: try await client.discover()) }
    let services = Set(TextStreamProfile.known.map(\.service) + (profile.map { [$0.service] } ?? []))
    return try await client.openThroughCache(
      keeping: services, cache: cache.store, key: cache.key,
      isStale: lacksService
    ) { database, _ in try await open(client, profile: profile, database: database) }
  }

  /// The error `open(_:profile:database:)` throws when the database has no text-stream service with Rx and Tx.
  private static func lacksService(_ error: any Error) -> Bool {
    guard case .notTextStream? = error as? TextStreamError else { return false }
    return true
  }

  /// The link on `database`: the profile's service, its Rx and Tx, Tx notifications on.
  static func open(
    _ client: GATTClient, profile: TextStreamProfile?, database: GATTDatabase
  ) async throws -> GATTTextStreamLink {
    guard let chosen = profile ?? TextStreamProfile.detect(in: database) else {
      let services = database.services.map { "\($0.uuid)" }.joined(separator: ", ")
      throw TextStreamError.notTextStream("none of the known text-stream services (found: \(services))")
    }
    guard let rx = database.characteristic(chosen.rx, inService: chosen.service),
      let tx = database.characteristic(chosen.tx, inService: chosen.service)
    else {
      throw TextStreamError.notTextStream("no \(chosen.name) service \(chosen.service) with its Rx and Tx")
    }
    var extras: [TextStreamProfile.Extra.Role: GATTCharacteristic] = [:]
    for extra in chosen.extras {
      extras[extra.role] = database.characteristic(extra.uuid, inService: chosen.service)
    }
    let stream = try await client.subscribe(to: tx)
    return GATTTextStreamLink(
      client: client, peer: client.bearer.peer, profile: chosen, rxCharacteristic: rx, txCharacteristic: tx,
      extras: extras, stream: stream)
  }

  public var attMTU: Int { get async { await client.mtu } }

  /// A Write Request (the libraries write with response). A fragment never exceeds ATT_MTU − 3, so this is
  /// never a long write.
  public func write(_ fragment: [UInt8]) async throws {
    try await client.write(fragment, to: rxCharacteristic.valueHandle)
  }

  public func notifications() async -> AsyncStream<[UInt8]> { stream }

  /// The GATT client's count of Tx notifications, in the order PDUs arrive.
  public var notificationsReceived: Int? {
    get async { await client.notificationCount(for: txCharacteristic.valueHandle) }
  }

  public func close() async { await client.close() }
}
