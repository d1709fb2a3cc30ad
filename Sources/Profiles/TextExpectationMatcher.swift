/// How an answer is held to a `TextExpectation` (the choice is written at `TextCommand`): text
/// equals one of the answer's lines; a regular expression (Swift `Regex` syntax) matches one whole line.
/// Regular expressions are compiled when used, never kept, so nothing here is shared between tasks.
enum TextExpectationMatcher {
  static func matches(_ expectation: TextExpectation, _ lines: [String]) -> Bool {
    switch expectation {
    case .text(let text):
      return lines.contains(text)
    case .regex(let pattern):
      guard let regex = try? Regex(pattern) else { return false }
      return lines.contains { (try? regex.wholeMatch(in: $0)) != nil }
    }
  }

  /// Why `pattern` does not compile, or nil when it does.
  static func compileProblem(_ pattern: String) -> String? {
    do {
      _ = try Regex(pattern)
      return nil
    } catch {
      return "\(error)"
    }
  }

  /// `compileProblem` for a pattern as written, its placeholders standing for a literal (filled-in values
  /// are escaped, so each is a literal too). A pattern whose placeholders are malformed is reported for
  /// that instead (`Template.syntaxError`), so nil here.
  static func patternProblem(_ pattern: String) -> String? {
    let sample = Template(pattern).render(
      TemplateVariables(address: "", index: 0), escaping: { _ in "x" }, unknown: { _ in "x" })
    guard case .success(let filled) = sample else { return nil }
    return compileProblem(filled)
  }

  /// `text` with every character a regular expression treats specially escaped, so it matches literally.
  static func escaped(_ text: String) -> String {
    var out = ""
    for c in text {
      if "\\^$.|?*+()[]{}/-#&~ ".contains(c) { out.append("\\") }
      out.append(c)
    }
    return out
  }
}
