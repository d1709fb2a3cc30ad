import Testing

@testable import JSON

/// The order- and number-preserving JSON used on the wire (docs/protocols/kbeacon.md §4.2, §6).
@Suite(.timeLimit(.minutes(1))) struct JSONValueTests {
  @Test func roundTripKeepsKeyOrderAndNumberText() throws {
    let text =
      #"{"msg":"cfg","advObj":[{"slot":0,"type":5,"advPrd":1022.5,"txPwr":-4,"conn":1}],"name":"a/b","x":1000.0}"#
    let value = try JSONParser.parse(text)
    #expect(JSONWriter.text(value) == text)
    #expect(value.objectValue?.keys == ["msg", "advObj", "name", "x"])
  }

  @Test func numbersCompareByValueAndIntegralDoublesPrintWithoutAFraction() {
    #expect(JSONNumber(text: "1000") == JSONNumber(1000.0))
    #expect(JSONNumber(1000.0).text == "1000")
    #expect(JSONNumber(text: "5.0").intValue == 5)
    #expect(JSONNumber(text: "5.5").intValue == nil)
  }

  @Test func stringsEscapeOnlyWhatJSONRequires() throws {
    let value = JSONValue.string("a\"b\\c/d\n\u{01}é")
    #expect(JSONWriter.text(value) == #""a\"b\\c/d\n\u0001é""#)
    #expect(try JSONParser.parse(JSONWriter.text(value)) == value)
  }

  @Test func objectEqualityIgnoresOrderButSettingKeepsPosition() {
    var a: JSONObject = ["x": .int(1), "y": .int(2)]
    let b: JSONObject = ["y": .int(2), "x": .int(1)]
    #expect(a == b)
    a["x"] = .int(3)
    #expect(a.keys == ["x", "y"])
    a["x"] = nil
    #expect(a.keys == ["y"])
  }
}
