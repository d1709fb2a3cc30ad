/// The output language priority of `BKResolveSettings` (docs/protocols/info-manager.md, "Defaults"): the content of an
/// info point is shown in the first language of the list for which it has at least one output info.
///
/// Codes are language-region pairs in lower case (`de-de`, `en-gb`) as the SDK's `OutputLanguage` values
/// are; we accept any `xx-yy` (2–3 letters, a dash, 2–3 letters or digits) so a server's new language needs
/// no code change [I]. When no language of the list has content, the info point is still RESOLVED but shows
/// no output infos (the SDK gives no fallback beyond the list) [I].
public struct LanguagePriority: Sendable, Hashable, Codable, CustomStringConvertible {
  public private(set) var codes: [String]

  /// The SDK's default order.
  public static let sdkDefault = LanguagePriority(checked: ["de-de", "fr-fr", "en-gb"])

  private init(checked codes: [String]) { self.codes = codes }

  /// Parses `de-de,en-gb` (case folded, blanks trimmed, duplicates dropped).
  public init(parsing text: String) throws(LanguageCodeError) {
    var codes: [String] = []
    for part in text.split(separator: ",", omittingEmptySubsequences: false) {
      let code = try Self.code(String(part))
      if !codes.contains(code) { codes.append(code) }
    }
    self.codes = codes
  }

  /// One checked, lower-cased language code.
  public static func code(_ text: String) throws(LanguageCodeError) -> String {
    let code = text.trimmingCharacters(in: " \t").lowercased()
    let parts = code.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 2, (2...3).contains(parts[0].count), (2...3).contains(parts[1].count),
      parts[0].allSatisfy({ $0.isASCII && $0.isLetter }),
      parts[1].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
    else { throw LanguageCodeError(text: text) }
    return code
  }

  /// The first language of the list that `point` has output infos in, and those infos (server order).
  public func choose(from point: InfoPoint) -> (language: String?, outputs: [OutputInfo]) {
    for code in codes {
      let outputs = point.outputInfos.filter { $0.languageCode == code }
      if !outputs.isEmpty { return (code, outputs) }
    }
    return (nil, [])
  }

  public var description: String { codes.joined(separator: ",") }
}

/// A language code that is not `xx-yy`.
public struct LanguageCodeError: Error, Sendable, Hashable, CustomStringConvertible {
  public var text: String
  public var description: String {
    "\"\(text)\" is not a language code like de-de, fr-fr or en-gb (language-region, separated by commas)"
  }
}

extension String {
  fileprivate func trimmingCharacters(in set: String) -> String {
    var s = Substring(self)
    while let f = s.first, set.contains(f) { s.removeFirst() }
    while let l = s.last, set.contains(l) { s.removeLast() }
    return String(s)
  }
}
