import Testing

@testable import InfoManager

/// Decoding of the Info Manager's answers (docs/protocols/info-manager.md, "Objects") from byte vectors, and the
/// refusals a malformed body gets: source, line:column, JSON path and the allowed values.
@Suite(.timeLimit(.minutes(2))) struct InfoManagerResponsesTests {
  static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

  @Test func anInfoPointCollectionDecodesEveryMember() throws {
    let body = """
      {"items": [{"id": "5629499534213120", "blukiiId": "B10001", "name": "Entrance", "description": "Desk",
        "deactivated": false, "deactivatedByAdmin": true, "notificationText": "Hello", "rssi": -70,
        "imageWebUrl": "https://example.org/i.png",
        "outputInfos": [{"type": "html", "title": "Welcome", "url": "https://example.org/w.html", "languageCode": "EN-GB"},
                        {"type": "AUDIO", "audioFileUrl": "https://example.org/a.mp3", "textToSpeech": "Hi", "languageCode": "de-de"}]},
        {"id": 5066549580791808, "outputInfos": null}]}
      """
    let points = try InfoManagerResponses.infoPoints(Self.bytes(body), source: "test")
    #expect(points.count == 2)
    #expect(points[0].id == "5629499534213120" && points[0].blukiiId == "B10001" && points[0].name == "Entrance")
    #expect(points[0].description == "Desk" && points[0].notificationText == "Hello")
    #expect(!points[0].deactivated && points[0].deactivatedByAdmin)
    #expect(points[0].imageWebUrl == "https://example.org/i.png")
    #expect(points[0].outputInfos.map(\.type) == [.html, .audio])
    // Language codes are folded to lower case; type names too.
    #expect(points[0].outputInfos[0].languageCode == "en-gb" && points[0].outputInfos[0].title == "Welcome")
    #expect(
      points[0].outputInfos[1].audioFileUrl == "https://example.org/a.mp3"
        && points[0].outputInfos[1].textToSpeech == "Hi")
    // A 64-bit ID sent as a number keeps its exact digits.
    #expect(points[1].id == "5066549580791808" && points[1].outputInfos.isEmpty && points[1].blukiiId == nil)
  }

  @Test func anEmptyCollectionMayOmitItems() throws {
    #expect(
      try InfoManagerResponses.infoPoints(Self.bytes(#"{"kind": "mobileclient#resourcesItem"}"#), source: "t").isEmpty)
    #expect(try InfoManagerResponses.infoPoints(Self.bytes(#"{"items": []}"#), source: "t").isEmpty)
  }

  /// A type a newer Info Manager may send is kept as sent (refusing it failed the whole resolve).
  @Test func anUnknownOutputTypeWordIsKeptAsSent() throws {
    let body = #"{"items": [{"id": "1", "outputInfos": [{"type": "survey", "title": "Tell us"}, {"type": "pdf"}]}]}"#
    let infos = try InfoManagerResponses.infoPoints(Self.bytes(body), source: "t")[0].outputInfos
    #expect(infos.map(\.type.rawValue) == ["SURVEY", "PDF"] && infos.map(\.type.isKnown) == [false, true])
    #expect(infos[0].title == "Tell us" && infos[1].type == .pdf)
  }

  @Test func aTypeThatIsNoWordIsRefusedWithItsPathAndTheKnownValues() {
    let body = "{\"items\": [{\"id\": \"1\",\n \"outputInfos\": [{\"type\": \"HOLO GRAM\"}]}]}"
    let error = #expect(throws: InfoManagerResponseError.self) {
      try InfoManagerResponses.infoPoints(Self.bytes(body), source: "http://h/getBlukiisInfo")
    }
    #expect(error?.path.description == "$.items[0].outputInfos[0].type")
    #expect(error?.position?.line == 2)
    let text = error?.description ?? ""
    #expect(text.hasPrefix("http://h/getBlukiisInfo:2:"))
    #expect(
      text.contains("HOLO") && text.contains("AUDIO, HTML, MESSAGE, MOBYCARD, PDF, VCARD, MECARD, VIDEO, WIFI, YOUTUBE")
    )
  }

  @Test(arguments: [
    (#"[]"#, "$", "InfoPointCollection"),
    (#"{"items": {}}"#, "$.items", "array of info points"),
    (#"{"items": [{"name": "x"}]}"#, "$.items[0]", "missing \"id\""),
    (#"{"items": [{"id": 1.5}]}"#, "$.items[0].id", "expected an ID"),
    (#"{"items": [{"id": "1", "deactivated": "yes"}]}"#, "$.items[0].deactivated", "true or false"),
    (#"{"items": [{"id": "1", "name": 7}]}"#, "$.items[0].name", "expected a string"),
    (#"{"items": [{"id": "1", "outputInfos": [{}]}]}"#, "$.items[0].outputInfos[0]", "missing \"type\""),
    (#"{"items": [ "#, "$", ""),
  ])
  func malformedCollectionsAreRefused(body: String, path: String, message: String) {
    let error = #expect(throws: InfoManagerResponseError.self) {
      try InfoManagerResponses.infoPoints(Self.bytes(body), source: "s")
    }
    #expect(error?.path.description == path)
    #expect(message.isEmpty ? error?.message.isEmpty == false : error?.message.contains(message) == true)
  }

  @Test func newsAndToken() throws {
    #expect(try InfoManagerResponses.newsText(Self.bytes(#"{"text": "Neu!"}"#), source: "s") == "Neu!")
    #expect(try InfoManagerResponses.newsText(Self.bytes("{}"), source: "s") == "")
    #expect(throws: InfoManagerResponseError.self) {
      try InfoManagerResponses.newsText(Self.bytes(#"{"text": 1}"#), source: "s")
    }
    #expect(try InfoManagerResponses.token(Self.bytes(#"{"token": "abc"}"#), source: "s") == "abc")
    #expect(throws: InfoManagerResponseError.self) {
      try InfoManagerResponses.token(Self.bytes(#"{"token": ""}"#), source: "s")
    }
  }
}
