import Foundation
import JSON
import Testing

@testable import KBeacon

/// Device answers and values that once trapped the tool (found by fuzzing the parsers): a faulty or hostile device may send
/// any number; the wire model keeps it, and nothing that converts it may trap.
@Suite("Hostile wire input", .timeLimit(.minutes(2)))
struct HostileWireInputTests {
  /// A `getPara` answer with numbers beyond `Int` and `Double` range parses, keeps the device's text,
  /// and reports no `Int` for them.
  @Test func anAnswerWithHugeNumbersParsesAndKeepsTheirText() throws {
    let text = #"{"maxSlot":-9223372036854775808,"maxPrd":-1e400,"advObj":[{"slot":0,"type":5,"advPrd":1e300}]}"#
    let config = try ReadResponse.parse(Array(text.utf8), generation: .pro)
    #expect(config.deviceJSON["maxSlot"]?.intValue == .min)
    #expect(config.deviceJSON["maxPrd"]?.intValue == nil)
    #expect(config.deviceJSON["maxPrd"]?.doubleValue == -.infinity)
    #expect(config.slot(0)?.fields["advPrd"]?.intValue == nil)
    #expect(JSONWriter.text(.object(config.deviceJSON)) == text)
  }

  /// A `Double` key holding a number beyond `Double` (`advPrd` 1e400 in a `getPara` answer) reads as
  /// absent, so copying it through the typed model cannot reach `JSONNumber(Double)` with infinity.
  @Test func aDoubleKeyBeyondDoubleReadsAsAbsentAndCopiesWithoutTrapping() throws {
    let text = #"{"maxPrd":-1e400,"advObj":[{"slot":0,"type":5,"advPrd":1e400}]}"#
    let config = try ReadResponse.parse(Array(text.utf8), generation: .pro)
    #expect(config.common[CommonKey.maxPrd] == nil)
    var slot = try #require(config.slot(0))
    #expect(slot[SlotKey.advPrd] == nil)
    slot[SlotKey.advPrd] = slot[SlotKey.advPrd]
    #expect(slot.fields["advPrd"] == nil)
  }

  /// Signed 8.8 fixed point (docs/protocols/kbeacon.md §8.3): 21.5 °C is 0x1580; values beyond the format
  /// saturate at 0x7FFF / 0x8000 and NaN is 0 instead of trapping.
  @Test func fixedPointEncodingSaturatesInsteadOfTrapping() {
    #expect(fixed88Raw(21.5) == 0x1580)
    #expect(fixed88Raw(-1) == 0xFF00)
    #expect(fixed88Raw(1e300) == 0x7FFF)
    #expect(fixed88Raw(-1e300) == 0x8000)
    #expect(fixed88Raw(.nan) == 0)
  }

  /// A decoder whose float strategy turns `"+Infinity"` into ∞ gives `JSONValue` a non-finite Double: a
  /// decoding error, not a trap in `JSONNumber(Double)`.
  @Test func decodingAnInfiniteDoubleIsAnError() throws {
    let decoder = JSONDecoder()
    decoder.nonConformingFloatDecodingStrategy = .convertFromString(
      positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")
    #expect(throws: DecodingError.self) { try decoder.decode(JSONValue.self, from: Data(#"["+Infinity"]"#.utf8)) }
    #expect(try decoder.decode(JSONValue.self, from: Data(#"[1.5]"#.utf8)) == .array([.double(1.5)]))
  }
}
