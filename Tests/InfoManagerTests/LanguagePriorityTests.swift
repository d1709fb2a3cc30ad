import Testing

@testable import InfoManager

/// The language priority (BKResolveSettings, docs/protocols/info-manager.md): parsing and the first-language-with-content
/// choice.
@Suite(.timeLimit(.minutes(2))) struct LanguagePriorityTests {
  static let point = InfoPoint(
    id: "1",
    outputInfos: [
      OutputInfo(type: .pdf, languageCode: "fr-fr"), OutputInfo(type: .video, languageCode: "en-gb"),
      OutputInfo(type: .youtube, languageCode: "en-gb"),
    ])

  @Test func theFirstLanguageWithContentWins() throws {
    let sdk = LanguagePriority.sdkDefault
    #expect(sdk.codes == ["de-de", "fr-fr", "en-gb"])
    // No German content: French is next.
    #expect(sdk.choose(from: Self.point).language == "fr-fr")
    #expect(sdk.choose(from: Self.point).outputs.map(\.type) == [.pdf])
    let english = try LanguagePriority(parsing: "EN-gb, de-de")
    #expect(english.codes == ["en-gb", "de-de"])
    #expect(english.choose(from: Self.point).outputs.map(\.type) == [.video, .youtube])
    // Nothing in any listed language: no language, no outputs.
    let none = try LanguagePriority(parsing: "it-it")
    #expect(none.choose(from: Self.point).language == nil && none.choose(from: Self.point).outputs.isEmpty)
  }

  @Test(arguments: ["", "english", "de_de", "de-de,,en-gb", "d-de", "de-deutschland"])
  func badCodesAreRefused(text: String) {
    let error = #expect(throws: LanguageCodeError.self) { try LanguagePriority(parsing: text) }
    #expect(error?.description.contains("de-de, fr-fr or en-gb") == true)
  }

  @Test func duplicatesAreDropped() throws {
    #expect(try LanguagePriority(parsing: "de-de,DE-DE,en-gb").codes == ["de-de", "en-gb"])
  }
}
