import Foundation
import Testing

@testable import JSON

/// `Codable` types written by `JSONValueEncoder` and read by `JSONFileDecoder`: Foundation's value types as
/// `JSONEncoder` writes them, the one output style, and every refusal as a positioned `JSONDiagnostic`.
@Suite(.timeLimit(.minutes(1))) struct CodableThroughJSONTests {
  struct Record: Codable, Equatable {
    var name: String
    var count: UInt8
    var ratio: Double
    var small: Float
    var at: Date
    var link: URL
    var blob: Data
    var tags: [String]
    var note: String?

    init(name: String, count: UInt8, ratio: Double, small: Float, at: Date, link: URL, blob: Data, tags: [String]) {
      (self.name, self.count, self.ratio, self.small, self.at, self.link, self.blob, self.tags) =
        (name, count, ratio, small, at, link, blob, tags)
    }

    init(from decoder: any Decoder) throws {
      try decoder.rejectUnknownKeys(known: ["name", "count", "ratio", "small", "at", "link", "blob", "tags", "note"])
      let c = try decoder.container(keyedBy: CodingKeys.self)
      name = try c.decode(String.self, forKey: .name)
      count = try c.decode(UInt8.self, forKey: .count)
      ratio = try c.decode(Double.self, forKey: .ratio)
      small = try c.decode(Float.self, forKey: .small)
      at = try c.decode(Date.self, forKey: .at)
      link = try c.decode(URL.self, forKey: .link)
      blob = try c.decode(Data.self, forKey: .blob)
      tags = try c.decode([String].self, forKey: .tags)
      note = try c.decodeIfPresent(String.self, forKey: .note)
    }
  }

  static let record = Record(
    name: "a/b", count: 7, ratio: 1022.5, small: 0.1, at: Date(timeIntervalSince1970: 1_800_000_000),
    link: URL(string: "https://example.com/x")!, blob: Data([1, 2, 3]), tags: ["x", "y"])

  @Test func aRecordRoundTripsInTheOneStyle() throws {
    let text = try JSONValueEncoder(dates: .iso8601).pretty(Self.record)
    #expect(
      text.contains(#""name": "a/b""#) && text.contains(#""small": 0.1,"#) && text.contains(#""tags": ["x", "y"]"#))
    #expect(text.contains(#""at": "2027-01-15T08:00:00Z""#) && text.contains(#""blob": "AQID""#), "\(text)")
    #expect(!text.contains(" : ") && !text.contains("note"))
    let keys = try #require(try JSONValueEncoder().encode(Self.record).objectValue).keys
    #expect(keys == keys.sorted())
    #expect(
      try JSONFileDecoder(file: "r.json", dates: .iso8601).decode(Record.self, from: Array(text.utf8)) == Self.record)
  }

  @Test func refusalsNameFileLineColumnPathAndSuggestion() throws {
    func error(_ text: String) -> String {
      do {
        _ = try JSONFileDecoder(file: "r.json", dates: .iso8601).decode(Record.self, from: Array(text.utf8))
        return "accepted"
      } catch { return error.description }
    }
    let good = try JSONValueEncoder(dates: .iso8601).pretty(Self.record)
    let misspelt = good.replacingOccurrences(of: #""ratio""#, with: #""ratoi""#)
    #expect(
      error(misspelt).hasPrefix(#"r.json:7:3: $.ratoi: unknown key "ratoi" — did you mean "ratio"? (allowed: name, "#),
      "\(error(misspelt))")
    #expect(
      error(good.replacingOccurrences(of: #""count": 7"#, with: #""count": 300"#))
        == "r.json:4:12: $.count: 300 is out of range (allowed: 0…255)")
    #expect(
      error(good.replacingOccurrences(of: #""count": 7"#, with: #""count": "7""#))
        == "r.json:4:12: $.count: expected an integer, found a string (allowed: 0…255)")
    #expect(error(#"{"name": "x"}"#) == #"r.json:1:1: $.count: missing required key "count""#)
    #expect(error("{\n  \"name\": }").hasPrefix("r.json:2:11: $: not valid JSON: "))
  }
}
