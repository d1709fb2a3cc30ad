import Foundation
import Testing

/// `scripts/real-peer-suites` names every suite that starts a real peer program, so the developer guide's fast
/// loop can skip them without knowing their names: read from the sources, each test file that starts a
/// PostgreSQL server, nginx or a Python server of `TestServers` must have its suites in the list (a suite added
/// without it made the fast loop start PostgreSQL: three were missing when this test was written). Suites that
/// start one through a fixture of their own, or another peer (Chromium, tmux, nrfutil), are listed by hand.
@Suite(.timeLimit(.minutes(1))) struct RealPeerSuiteListTests {
  /// The calls that start a real peer.
  static let starts = ["PostgresServer.start(", "Nginx.start(", "PythonServer.start("]

  /// The suites the list names (its `real_peer_suites='A|B|…'` line).
  static func listed() throws -> Set<String> {
    let script = SuiteTimeLimitTests.tests.deletingLastPathComponent().appendingPathComponent(
      "scripts/real-peer-suites")
    let text = try String(contentsOf: script, encoding: .utf8)
    let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("real_peer_suites='") })
    return Set(line.dropFirst("real_peer_suites='".count).dropLast().split(separator: "|").map(String.init))
  }

  @Test func everySuiteThatStartsAPeerIsListed() throws {
    let listed = try Self.listed()
    #expect(listed.contains("SeveralGatewaysTests") && listed.count > 30, "read \(listed.count) names")
    let files = try #require(FileManager.default.enumerator(atPath: SuiteTimeLimitTests.tests.path))
      .compactMap { $0 as? String }.filter {
        $0.hasSuffix("Tests.swift") && !$0.hasSuffix("/RealPeerSuiteListTests.swift")
      }
    var missing: [String] = []
    var starting = 0
    for file in files {
      let text = try String(contentsOf: SuiteTimeLimitTests.tests.appendingPathComponent(file), encoding: .utf8)
      guard Self.starts.contains(where: text.contains) else { continue }
      let suites = text.split(separator: "\n").compactMap { SuiteTimeLimitTests.suiteName(String($0)) }
      starting += suites.count
      missing += suites.filter { !listed.contains($0) }.map { "\(file): \($0)" }
    }
    #expect(starting > 10, "the scan found only \(starting) suites starting a peer")
    #expect(missing.isEmpty, "not in scripts/real-peer-suites: \(missing.sorted().joined(separator: ", "))")
  }
}
