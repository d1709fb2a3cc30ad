/// Setting a link up on cached handles, trusted only as far as the set-up goes [I]: the profile links
/// (KBeacon FEA0, the text-stream services) look their characteristics up in the database and write a
/// CCCD before anything else, which is the first moment a stale entry can show on a device without a
/// Database Hash (the handle-by-type check of `matches(_:)` cannot see a characteristic's properties).
extension GATTClient {
  /// Runs `open` on the services `keeping` names, from `cache` when its entry for `key` still holds
  /// (`discover(keeping:cache:key:)`). When `open` fails on a cache hit — an ATT request refused as Invalid
  /// Handle or Attribute Not Found (a cached handle the device no longer has), or an error `isStale` names
  /// (the profile's characteristics missing from the cached table) — the entry is dropped and `open` runs
  /// once more on a full discovery over this same link, with the outcome `.layoutChanged`. Any other
  /// failure, or one after a fresh discovery, is the caller's.
  public nonisolated func openThroughCache<Link>(
    keeping services: Set<BluetoothUUID>, cache: any GATTCacheStore, key: GATTCacheKey,
    isStale: (any Error) -> Bool,
    _ open: (GATTDatabase, GATTCacheOutcome) async throws -> Link
  ) async throws -> Link {
    let (database, outcome) = try await discover(keeping: services, cache: cache, key: key)
    guard outcome == .hit else { return try await open(database, outcome) }
    do {
      return try await open(database, outcome)
    } catch let error as ATTRequestError where error.code == .invalidHandle || error.code == .attributeNotFound {
      await cache.drop(key)
    } catch let error where isStale(error) {
      await cache.drop(key)
    }
    return try await open(try await discover(), .layoutChanged)
  }
}
