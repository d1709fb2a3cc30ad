/// The resolve state machine of the SDK (docs/protocols/info-manager.md, "Resolve states"), pure: a resolve is planned
/// (which IDs are served from the cache, which are asked), then finished with the server's answer or its
/// failure. One request carries every asked ID of a batch.
///
/// - Batch with cache: an ID with a fresh cache entry is CACHED and not asked; the others are asked. An
///   answer gives RESOLVED (stored in the cache) or NODATA (removed from it); no answer (server unreachable,
///   too slow, 5xx) gives UNRESOLVED. So a server that fails after a success still yields CACHED for the
///   cache's timeout, and UNRESOLVED once it has expired.
/// - Single ID (`single`, the SDK's `resolveInputElement`): no cache — always asked, never stored — and
///   RESOLVED or NODATA only; the caller reports an unreachable server as an error.
/// - A batch with the cache switched off (`cacheEnabled` false): always asked, never stored, UNRESOLVED when
///   the server cannot be reached.
public struct BatchResolution: Sendable, Hashable {
  public var source: InputSource
  public var languages: LanguagePriority
  /// A single-element resolve: no cache, and no UNRESOLVED state.
  public var single: Bool
  /// Whether a batch reads and writes the cache (a single resolve never does).
  public var cacheEnabled: Bool
  /// Seconds an answer stays fresh (`ResolveCache.defaultTimeout`).
  public var cacheTimeout: Double
  /// Whose answers the cache holds: the server and account (`ResolveCache.key(scope:source:id:)`).
  public var cacheScope: String = ""

  public init(
    source: InputSource, languages: LanguagePriority, single: Bool = false, cacheEnabled: Bool = true,
    cacheTimeout: Double = ResolveCache.defaultTimeout
  ) {
    self.source = source
    self.languages = languages
    self.single = single
    self.cacheEnabled = cacheEnabled
    self.cacheTimeout = cacheTimeout
  }

  /// Whether this resolve reads and writes the cache.
  public var usesCache: Bool { cacheEnabled && !single }

  /// What to do for `ids` (duplicates dropped, order kept).
  public struct Plan: Sendable, Hashable {
    /// Every ID, in the caller's order.
    public var ids: [String]
    /// The IDs to ask the server for, in order; empty: no request.
    public var ask: [String]
    /// The CACHED results, by ID.
    public var cached: [String: ResolveResult]
  }

  public func plan(_ ids: [String], cache: ResolveCache, now: Double) -> Plan {
    var seen = Set<String>()
    let unique = ids.filter { seen.insert($0).inserted }
    var cached: [String: ResolveResult] = [:]
    var ask: [String] = []
    for id in unique {
      if usesCache, let entry = cache.fresh(scope: cacheScope, source: source, id: id, now: now, timeout: cacheTimeout)
      {
        cached[id] = ResolveResult(
          id: id, source: source, state: .cached, infoPoint: InfoPointSummary(entry.infoPoint, languages: languages),
          cachedAt: entry.storedAt)
      } else {
        ask.append(id)
      }
    }
    return Plan(ids: unique, ask: ask, cached: cached)
  }

  /// The results once the server answered the plan's request with `points`.
  public func answered(_ plan: Plan, points: [InfoPoint], cache: inout ResolveCache, now: Double) -> [ResolveResult] {
    let matched = Self.match(points, to: plan.ask)
    // Info points that name no blukiiId cannot be matched to one of several IDs: say so on each NODATA, which
    // would otherwise read as "not registered" (every ID of a batch was NODATA with exit 0).
    let anonymous = plan.ask.count > 1 ? points.filter { $0.blukiiId == nil }.count : 0
    let noDataReason =
      anonymous == 0
      ? nil
      : "the answer holds \(anonymous) info point\(anonymous == 1 ? "" : "s") without a blukiiId, which cannot be matched to an asked ID"
    var asked: [String: ResolveResult] = [:]
    for id in plan.ask {
      if let point = matched[id] {
        if usesCache { cache.store(point, scope: cacheScope, source: source, id: id, now: now) }
        asked[id] = ResolveResult(
          id: id, source: source, state: .resolved, infoPoint: InfoPointSummary(point, languages: languages))
      } else {
        if usesCache { cache.remove(scope: cacheScope, source: source, id: id) }
        asked[id] = ResolveResult(id: id, source: source, state: .noData, reason: noDataReason)
      }
    }
    if usesCache { cache.prune(now: now, timeout: cacheTimeout) }
    return plan.ids.map { plan.cached[$0] ?? asked[$0]! }
  }

  /// The results when the plan's request got no answer; `reason` says why (no secrets).
  public func unreachable(_ plan: Plan, reason: String) -> [ResolveResult] {
    plan.ids.map { plan.cached[$0] ?? ResolveResult(id: $0, source: source, state: .unresolved, reason: reason) }
  }

  /// The info point for each asked ID: the one whose `blukiiId` names it (the first, if several do); for a
  /// request of one ID, also a lone answer that names no ID (see `InfoPoint`).
  static func match(_ points: [InfoPoint], to ids: [String]) -> [String: InfoPoint] {
    var result: [String: InfoPoint] = [:]
    let wanted = Set(ids)
    for point in points {
      if let id = point.blukiiId, wanted.contains(id), result[id] == nil { result[id] = point }
    }
    if ids.count == 1, result.isEmpty, points.count == 1, points[0].blukiiId == nil { result[ids[0]] = points[0] }
    return result
  }
}
