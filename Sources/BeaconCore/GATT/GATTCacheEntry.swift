/// Which device a GATT cache entry belongs to: an LE address *and* its type, since a public and a random
/// device may share the 48 bits and a link is made to both (Core v5.4 Vol 6 Part B §1.3).
public struct GATTCacheKey: Hashable, Sendable, Codable, CustomStringConvertible {
  public var address: BluetoothAddress
  public var type: AddressType

  public init(address: BluetoothAddress, type: AddressType) {
    self.address = address
    self.type = type
  }

  /// `AA:BB:CC:DD:EE:FF/random`: the entry's name in the cache file.
  public var description: String { "\(address)/\(type)" }

  /// Reads `description` back; nil for anything else.
  public init?(_ text: String) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let address = BluetoothAddress(String(parts[0])) else { return nil }
    switch parts[1] {
    case "public": type = .public
    case "random": type = .random
    default: return nil
    }
    self.address = address
  }
}

/// What the tool remembers of one device's attribute table between visits, as BlueZ's GATT cache does
/// (docs/protocols/linux-ble.md §4 item 7): the services it uses — their handles, characteristics and descriptors, as
/// discovery found them — and the device's Database Hash when it has one.
///
/// - `databaseHash`: the 16 octets of the Database Hash characteristic (0x2B2A, Core v5.4 Vol 3 Part G
///   §7.3), read *before* the discovery these handles came from, so a table that changed during that
///   discovery never hides behind a newer hash; kept as read (opaque: BlueZ and Zephyr send the AES-CMAC in
///   opposite octet orders, and only equality matters). Nil: the device has none.
/// - `services`: only those the caller named (the KBeacon configuration service FEA0), so a device
///   without a hash is verified for exactly what is used (`GATTCacheCheck`).
/// - `serviceChangedHandle`: the value handle of Service Changed (0x2A05, Part G §7.1), kept only when the
///   hash vouches for it, so an indication of it during a visit drops the entry.
public struct GATTCacheEntry: Hashable, Sendable, Codable {
  public var key: GATTCacheKey
  public var databaseHash: [UInt8]?
  public var services: [GATTService]
  public var serviceChangedHandle: UInt16?

  public init(key: GATTCacheKey, databaseHash: [UInt8]?, services: [GATTService], serviceChangedHandle: UInt16? = nil) {
    self.key = key
    self.databaseHash = databaseHash
    self.services = services
    self.serviceChangedHandle = serviceChangedHandle
  }

  /// The cached part of the table as a database the client can look characteristics up in.
  public var database: GATTDatabase { GATTDatabase(services: services) }

  /// Every attribute the cached services span, as Find Information (Part F §3.4.3) would list it: the
  /// service declaration, include declarations, then per characteristic its declaration (0x2803), its value
  /// (the characteristic's UUID, right after the declaration: Part G §3.3.2) and its descriptors. Nil when
  /// the entry does not account for every handle of a service (an entry this version did not write).
  public func expectedAttributes(of service: GATTService) -> [ATTFindInformationResponse.Entry]? {
    let declaration = service.isPrimary ? GATTAttributeType.primaryService : GATTAttributeType.secondaryService
    var list = [ATTFindInformationResponse.Entry(handle: service.startHandle, type: declaration)]
    for include in service.includes {
      list.append(.init(handle: include.handle, type: GATTAttributeType.include))
    }
    for c in service.characteristics {
      list.append(.init(handle: c.declarationHandle, type: GATTAttributeType.characteristic))
      list.append(.init(handle: c.valueHandle, type: c.uuid))
      for d in c.descriptors { list.append(.init(handle: d.handle, type: d.uuid)) }
    }
    list.sort { $0.handle < $1.handle }
    // Every handle from the declaration to the service's end, each once: anything else is not a whole table.
    let handles = list.map { Int($0.handle) }
    guard handles == Array(Int(service.startHandle)...Int(service.endHandle)) else { return nil }
    return list
  }
}

/// Where entries are kept: in memory (`GATTCacheMemory`) or in a file several processes share (the
/// CLI's `GATTCacheFile`). A cache that cannot be read or written behaves as an empty one: the device is
/// then discovered, never guessed.
public protocol GATTCacheStore: Sendable {
  func entry(for key: GATTCacheKey) async -> GATTCacheEntry?
  func save(_ entry: GATTCacheEntry) async
  func drop(_ key: GATTCacheKey) async
}

/// A cache for one process (tests, benchmarks).
public actor GATTCacheMemory: GATTCacheStore {
  public private(set) var entries: [GATTCacheKey: GATTCacheEntry] = [:]

  public init(_ entries: [GATTCacheEntry] = []) {
    for e in entries { self.entries[e.key] = e }
  }

  public func entry(for key: GATTCacheKey) -> GATTCacheEntry? { entries[key] }
  public func save(_ entry: GATTCacheEntry) { entries[entry.key] = entry }
  public func drop(_ key: GATTCacheKey) { entries[key] = nil }
}
