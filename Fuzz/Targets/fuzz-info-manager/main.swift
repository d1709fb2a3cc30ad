import FuzzSupport
import InfoManager

// A blukii Info Manager answer (docs/protocols/info-manager.md) as `resolve`, `news` and `audit` read it from a server:
// decoded as an InfoPointCollection, a News and a token; the info points then go through the resolve state
// machine (matched to the IDs asked, cached, served from the cache) and the language priority.
// Properties: a batch gives exactly one result per ID asked, in order; the content shown is in the language
// chosen; a result served from the cache carries the info point that was stored.
private let ids = ["B10001", "B10002", "B10003", "x"]
private let priorities = [LanguagePriority.sdkDefault, try! LanguagePriority(parsing: "en-gb,it-it")]

Fuzzer.run { data, size in
  let bytes = Fuzzer.bytes(data, size)
  _ = try? InfoManagerResponses.newsText(bytes, source: "fuzz/getNews")
  _ = try? InfoManagerResponses.token(bytes, source: "fuzz/getToken")
  let points: [InfoPoint]
  do {
    points = try InfoManagerResponses.infoPoints(bytes, source: "fuzz/getBlukiisInfo")
  } catch {
    _ = String(describing: error)
    return 0
  }
  for languages in priorities {
    for point in points {
      let (language, outputs) = languages.choose(from: point)
      if outputs.contains(where: { $0.languageCode != language }) {
        Fuzzer.fail("content shown in another language than the one chosen (\(language ?? "none"))", bytes)
      }
    }
    let batch = BatchResolution(source: .blukii, languages: languages, cacheTimeout: 10)
    var cache = ResolveCache()
    let asked = batch.plan(ids, cache: cache, now: 0)
    let first = batch.answered(asked, points: points, cache: &cache, now: 0)
    if first.map(\.id) != ids { Fuzzer.fail("results \(first.map(\.id)) for the IDs \(ids)", bytes) }
    let again = batch.unreachable(batch.plan(ids, cache: cache, now: 5), reason: "down")
    for (before, after) in zip(first, again) where before.state == .resolved {
      if after.state != .cached || after.infoPoint != before.infoPoint {
        Fuzzer.fail("a fresh answer for \(before.id) was not served from the cache", bytes)
      }
    }
  }
  return 0
}
