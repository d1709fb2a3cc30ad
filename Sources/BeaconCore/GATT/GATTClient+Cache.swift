/// The Generic Attribute service's caching characteristics (Core v5.4 Vol 3 Part G §7).
public enum GATTCaching {
  /// Generic Attribute service 0x1801 (§7).
  public static let genericAttributeService = BluetoothUUID(0x1801)
  /// Service Changed 0x2A05 (§7.1): indicated, value = first and last affected handle (2 + 2, little-endian).
  public static let serviceChanged = BluetoothUUID(0x2A05)
  /// Client Supported Features 0x2B29 (§7.2): bit 0 Robust Caching.
  public static let clientSupportedFeatures = BluetoothUUID(0x2B29)
  /// Database Hash 0x2B2A (§7.3): 128-bit AES-CMAC over the table's structure, read-only.
  public static let databaseHash = BluetoothUUID(0x2B2A)
}

/// How a visit got the handles it uses.
public enum GATTCacheOutcome: String, Sendable, Hashable {
  /// The cache was used: the Database Hash matched, or (a device without one) the cached services' every
  /// handle and type matched.
  case hit
  /// No entry: the table was discovered and an entry saved.
  case noEntry = "no entry"
  /// The Database Hash differed from the entry's (or the device no longer has one): dropped, rediscovered.
  case hashChanged = "hash changed"
  /// A device without a Database Hash whose cached services no longer match: dropped, rediscovered.
  case layoutChanged = "layout changed"
}

/// Discovery through a GATT cache, as BlueZ's `bt_gatt_client` does with `Cache=always` (docs/protocols/linux-ble.md §4
/// item 7), for a client without a bond (a KBeacon never bonds, docs/protocols/kbeacon.md §5):
///
/// - **With a Database Hash** (Part G §7.3) the entry is checked by reading it — Read Using Characteristic
///   UUID 0x2B2A over 0x0001…0xFFFF (§4.8.2), one round trip, no handle needed — and used when the 16
///   octets are equal. An unbonded client is change-aware on connection and the server keeps no state for
///   it across links (§2.5.2.1), so robust caching's Database Out Of Sync (0x12) never protects it: reading
///   the hash is its only check [I: Client Supported Features is not written, it would cost a round trip
///   and buy nothing without a bond].
/// - **Without one** [I] the entry is checked by Find Information over each cached service's range (one
///   round trip per service at MTU 247): the same type at every handle — declarations, values (the
///   characteristic UUID sits right after its declaration, §3.3.2), CCCDs — or the entry is dropped. A
///   wrong-handle write thus needs a table whose every handle in the service keeps its type while the
///   characteristic properties change; properties are not re-read (a changed FEA1 would then time out, and
///   the caller drops the entry after any failed visit that used it).
/// - The hash is read **before** discovery, so an entry never pairs a newer hash with an older table.
/// - **Service Changed** (§7.1): its indication during a visit that used the cache drops the entry and,
///   when the changed range touches a cached service, closes the link (the visit fails as a lost link and
///   is retried from a fresh discovery). The CCCD is not written [I: unbonded, the server indicates only
///   a client that enabled it in this connection, and that costs a round trip per visit], so only a server
///   that indicates anyway, or bluetoothd's own subscription on the link (docs/protocols/linux-ble.md §4 item 4), is heard.
extension GATTClient {
  /// The Database Hash, or nil when the server has none (Attribute Not Found) or will not let it be read
  /// [I: any Error Response counts as "none"; a cached hash then never matches].
  public func readDatabaseHash() async throws -> [UInt8]? {
    let answer: ATTPDU
    do {
      answer = try await transact(
        ATTReadByTypeRequest(startHandle: 0x0001, endHandle: 0xFFFF, type: GATTCaching.databaseHash))
    } catch is ATTRequestError {
      return nil
    }
    guard case .readByTypeResponse(let response) = answer else { throw unexpected(answer) }
    guard let first = response.entries.first, first.value.count == 16 else { return nil }
    return first.value
  }

  /// Whether the server still holds, handle for handle, the attributes `entry` caches (Find Information
  /// over each service's range, Part G §4.7.1 applied to the whole range).
  public func matches(_ entry: GATTCacheEntry) async throws -> Bool {
    for service in entry.services {
      guard let expected = entry.expectedAttributes(of: service) else { return false }
      var found: [ATTFindInformationResponse.Entry] = []
      var start = service.startHandle
      while start <= service.endHandle {
        let answer: ATTPDU
        do {
          answer = try await transact(ATTFindInformationRequest(startHandle: start, endHandle: service.endHandle))
        } catch let error as ATTRequestError where error.code == .attributeNotFound || error.code == .invalidHandle {
          return false
        }
        guard case .findInformationResponse(let response) = answer else { throw unexpected(answer) }
        found += response.entries
        guard let last = response.entries.last, last.handle < service.endHandle, last.handle >= start else { break }
        start = last.handle + 1
      }
      if found != expected { return false }
    }
    return true
  }

  /// The services named in `keeping`, from `cache` when its entry for `key` still holds, else from a full
  /// discovery (whose result replaces the entry). Sets `database` to what is returned.
  public func discover(
    keeping services: Set<BluetoothUUID>, cache: any GATTCacheStore, key: GATTCacheKey
  ) async throws -> (database: GATTDatabase, outcome: GATTCacheOutcome) {
    let outcome: GATTCacheOutcome
    var hash: [UInt8]?
    if let entry = await cache.entry(for: key) {
      if let stored = entry.databaseHash {
        hash = try await readDatabaseHash()
        if hash == stored { return hit(entry, cache: cache) }
        outcome = .hashChanged
      } else {
        if try await matches(entry) { return hit(entry, cache: cache) }
        hash = try await readDatabaseHash()
        outcome = .layoutChanged
      }
      await cache.drop(key)
    } else {
      hash = try await readDatabaseHash()
      outcome = .noEntry
    }
    let full = try await discover()
    let kept = full.services.filter { services.contains($0.uuid) }
    let changed =
      hash == nil
      ? nil : full.characteristic(GATTCaching.serviceChanged, inService: GATTCaching.genericAttributeService)
    let entry = GATTCacheEntry(key: key, databaseHash: hash, services: kept, serviceChangedHandle: changed?.valueHandle)
    await cache.save(entry)
    watchServiceChanged(entry, cache: cache)
    return (full, outcome)
  }

  private func hit(_ entry: GATTCacheEntry, cache: any GATTCacheStore) -> (
    database: GATTDatabase, outcome: GATTCacheOutcome
  ) {
    setDatabase(entry.database)
    watchServiceChanged(entry, cache: cache)
    return (entry.database, .hit)
  }

  /// Drops `entry` on a Service Changed indication (value: start, end handle) and closes the link when
  /// the range overlaps a cached service. The watch ends with the link.
  private func watchServiceChanged(_ entry: GATTCacheEntry, cache: any GATTCacheStore) {
    guard let handle = entry.serviceChangedHandle else { return }
    let stream = notifications(for: handle)
    Task { [weak self] in
      for await value in stream {
        await cache.drop(entry.key)
        let start = value.count >= 4 ? UInt16(value[0]) | UInt16(value[1]) << 8 : 0x0001
        let end = value.count >= 4 ? UInt16(value[2]) | UInt16(value[3]) << 8 : 0xFFFF
        if entry.services.contains(where: { $0.startHandle <= end && start <= $0.endHandle }) { await self?.close() }
        return
      }
    }
  }
}
