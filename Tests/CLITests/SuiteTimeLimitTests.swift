import Foundation
import Testing

/// Every test suite has a time limit (`.timeLimit` in its `@Suite` attribute), so a stuck test fails by its
/// name instead of holding the whole run until the watcher's silence limit (docs/developer-guide.md, "What each
/// suite checks"). Read from the sources: each top-level `struct …Tests` or `final class …Tests` of a file that
/// holds `@Test`, with the attribute lines right above it.
@Suite(.timeLimit(.minutes(1))) struct SuiteTimeLimitTests {
  static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

  /// The suites of one file's text that have no `.timeLimit` in the attributes above their declaration.
  static func suitesWithoutALimit(_ text: String) -> [String] {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var missing: [String] = []
    for (i, line) in lines.enumerated() {
      guard let name = suiteName(line) else { continue }
      // The attribute block: this line and the lines above it up to a doc comment, a blank line or an import.
      var block = line
      var k = i - 1
      while k >= 0, !lines[k].hasPrefix("///"), !lines[k].trimmingCharacters(in: .whitespaces).isEmpty,
        !lines[k].hasPrefix("import"), !lines[k].hasPrefix("}")
      {
        block = lines[k] + block
        k -= 1
      }
      if !block.contains(".timeLimit(") { missing.append(name) }
    }
    return missing
  }

  /// `XTests` when the line declares a top-level suite type named so.
  static func suiteName(_ line: String) -> String? {
    for keyword in ["struct ", "final class "] {
      guard let range = line.range(of: keyword) else { continue }
      let before = line[..<range.lowerBound]
      guard before.isEmpty || before.hasPrefix("@Suite") || before.hasPrefix("@") else { continue }
      let name = line[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
      if name.hasSuffix("Tests") { return String(name) }
    }
    return nil
  }

  @Test func everySuiteHasATimeLimit() throws {
    let files = try #require(FileManager.default.enumerator(atPath: Self.tests.path)).compactMap { $0 as? String }
      .filter { $0.hasSuffix(".swift") }
    var missing: [String] = []
    var suites = 0
    for file in files {
      let text = try String(contentsOf: Self.tests.appendingPathComponent(file), encoding: .utf8)
      guard text.contains("@Test") else { continue }
      suites += text.split(separator: "\n").filter { Self.suiteName(String($0)) != nil }.count
      missing += Self.suitesWithoutALimit(text).map { "\(file): \($0)" }
    }
    #expect(suites > 200, "the scan found only \(suites) suites")
    #expect(missing.isEmpty, "suites without .timeLimit: \(missing.sorted().joined(separator: ", "))")
  }

  /// The reader itself: a suite without a limit is found, with or without `@Suite`, and one with it is not.
  @Test func theReaderFindsASuiteWithoutALimit() {
    let text = """
      import Testing

      /// One.
      @Suite(.serialized, .timeLimit(.minutes(2))) struct ATests {}

      /// Two.
      @Suite(
        "b", .serialized)
      struct BTests {}

      struct CTests {}
      extension CTests {}
      """
    #expect(Self.suitesWithoutALimit(text) == ["BTests", "CTests"])
  }
}
