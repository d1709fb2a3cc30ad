import BeaconCore
import Foundation
import Testing

/// A device heard only with HCI's "RSSI not available" (127) has no RSSI: `scan --json` printed
/// `"rssi" : {`, a blank line and `}`; it is `null` now, and reads back the same.
@Suite(.timeLimit(.minutes(1))) struct RSSIStatisticsJSONTests {
  @Test func noRSSIIsNullAndAKnownOneIsAnObject() throws {
    var none = RSSIStatistics()
    none.add(127)
    var known = RSSIStatistics()
    known.add(-70)
    known.add(-60)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    let text = String(decoding: try encoder.encode(["a": none, "b": known]), as: UTF8.self)
    #expect(text.contains(#""a" : null"#) && text.contains(#""latest" : -60"#), "\(text)")
    let back = try JSONDecoder().decode([String: RSSIStatistics].self, from: Data(text.utf8))
    #expect(back == ["a": none, "b": known])
  }
}
