import Testing

@testable import InfoManager

/// The resolve state machine (docs/protocols/info-manager.md, "Resolve states"): UNRESOLVED, RESOLVED, NODATA and
/// CACHED, the cache's timeout and the single-ID rule, on a time line given as numbers (no clock).
@Suite(.timeLimit(.minutes(2))) struct BatchResolutionTests {
  static let entrance = InfoPoint(
    id: "100", blukiiId: "B1", name: "Entrance", outputInfos: [OutputInfo(type: .html, languageCode: "en-gb")])
  static let batch = BatchResolution(source: .blukii, languages: .sdkDefault, cacheTimeout: 180)

  @Test func anAnswerResolvesRegisteredIDsAndReportsTheOthersAsNoData() {
    var cache = ResolveCache()
    let plan = Self.batch.plan(["B1", "B2", "B1"], cache: cache, now: 1000)
    #expect(plan.ask == ["B1", "B2"] && plan.cached.isEmpty)
    let results = Self.batch.answered(plan, points: [Self.entrance], cache: &cache, now: 1000)
    #expect(results.map(\.state) == [.resolved, .noData])
    #expect(results[0].infoPoint?.name == "Entrance" && results[0].infoPoint?.language == "en-gb")
    #expect(results[1].infoPoint == nil)
    // Only the info point is cached, under its source and ID.
    #expect(cache.entries.keys.sorted() == ["blukii:B1"], "an unscoped resolution keeps the old key")
  }

  /// A save applies only this run's changes to the file's cache: another run's entries stay.
  @Test func aRunsChangesApplyOnTopOfAnotherRunsEntries() {
    let other = InfoPoint(id: "200", blukiiId: "B2", name: "Shop")
    var before = ResolveCache()
    before.store(Self.entrance, source: .blukii, id: "B9", now: 1)
    var after = before
    after.store(Self.entrance, source: .blukii, id: "B1", now: 5)
    after.remove(source: .blukii, id: "B9")
    var file = before
    file.store(other, source: .blukii, id: "B2", now: 3)
    file.apply(changesFrom: before, to: after)
    #expect(file.entries.keys.sorted() == ["blukii:B1", "blukii:B2"])
    #expect(file.entries["blukii:B2"]?.infoPoint == other && file.entries["blukii:B1"]?.storedAt == 5)
  }

  @Test func unreachableThenCachedAfterASuccessThenExpired() {
    var cache = ResolveCache()
    // Server down, nothing cached: UNRESOLVED with the reason.
    let first = Self.batch.plan(["B1"], cache: cache, now: 0)
    let down = Self.batch.unreachable(first, reason: "connection refused")
    #expect(down.map(\.state) == [.unresolved] && down[0].reason == "connection refused")
    // The server answers: RESOLVED and stored.
    _ = Self.batch.answered(
      Self.batch.plan(["B1"], cache: cache, now: 10), points: [Self.entrance], cache: &cache, now: 10)
    // 179 s later the entry is fresh: CACHED, not asked, whatever the server's state.
    let fresh = Self.batch.plan(["B1", "B2"], cache: cache, now: 189)
    #expect(fresh.ask == ["B2"])
    let served = Self.batch.unreachable(fresh, reason: "timed out")
    #expect(served.map(\.state) == [.cached, .unresolved])
    #expect(served[0].cachedAt == 10 && served[0].infoPoint?.id == "100")
    // 180 s after the answer it has expired: asked again, and UNRESOLVED while the server is down.
    let expired = Self.batch.plan(["B1"], cache: cache, now: 190)
    #expect(expired.ask == ["B1"])
    #expect(Self.batch.unreachable(expired, reason: "down").map(\.state) == [.unresolved])
  }

  @Test func aNoDataAnswerDropsTheCachedEntry() {
    var cache = ResolveCache()
    cache.store(Self.entrance, source: .blukii, id: "B1", now: 0)
    let noCache = BatchResolution(source: .blukii, languages: .sdkDefault, cacheTimeout: 10)
    let results = noCache.answered(noCache.plan(["B1"], cache: cache, now: 20), points: [], cache: &cache, now: 20)
    #expect(results.map(\.state) == [.noData] && cache.entries.isEmpty)
  }

  @Test func aSingleIDResolveNeitherReadsNorWritesTheCache() {
    var cache = ResolveCache()
    cache.store(Self.entrance, source: .nfc, id: "04A1", now: 0)
    let single = BatchResolution(source: .nfc, languages: .sdkDefault, single: true)
    let plan = single.plan(["04A1"], cache: cache, now: 1)
    #expect(plan.ask == ["04A1"])
    // A lone answer without blukiiId belongs to the one ID asked.
    var answer = Self.entrance
    answer.blukiiId = nil
    let before = cache
    let results = single.answered(plan, points: [answer], cache: &cache, now: 1)
    #expect(results.map(\.state) == [.resolved] && results[0].source == .nfc)
    #expect(cache == before)
  }

  @Test func aBatchWithoutCacheIsAlwaysAskedAndMayBeUnresolved() {
    var cache = ResolveCache()
    cache.store(Self.entrance, source: .blukii, id: "B1", now: 0)
    let off = BatchResolution(source: .blukii, languages: .sdkDefault, cacheEnabled: false)
    let plan = off.plan(["B1", "B2"], cache: cache, now: 1)
    #expect(plan.ask == ["B1", "B2"] && !off.single)
    #expect(off.unreachable(plan, reason: "down").map(\.state) == [.unresolved, .unresolved])
    let before = cache
    _ = off.answered(plan, points: [], cache: &cache, now: 1)
    #expect(cache == before)
  }

  @Test func sourcesHaveSeparateCacheEntries() {
    var cache = ResolveCache()
    cache.store(Self.entrance, source: .blukii, id: "B1", now: 0)
    let barcode = BatchResolution(source: .barcode, languages: .sdkDefault)
    #expect(barcode.plan(["B1"], cache: cache, now: 1).ask == ["B1"])
  }

  @Test func answersAreMatchedByTheirBlukiiID() {
    let other = InfoPoint(id: "200", blukiiId: "B2")
    let matched = BatchResolution.match(
      [other, Self.entrance, InfoPoint(id: "300", blukiiId: "B9")], to: ["B1", "B2"])
    #expect(matched["B1"]?.id == "100" && matched["B2"]?.id == "200" && matched.count == 2)
    // Several IDs: an answer that names none is not guessed at.
    #expect(BatchResolution.match([InfoPoint(id: "1")], to: ["B1", "B2"]).isEmpty)
  }
}
