import Foundation
import TestServers
import Testing

@testable import Audit

/// The HTML report in a real browser, headless Chromium: its scripts run without one console message (no
/// exception, no Content-Security-Policy refusal, no request), they leave every device row visible and the
/// counts the summary has, the URL fragment filters and sorts, and a screenshot is written to
/// `.build/audit-report.png` (the page beside it) for a person to look at. Without Chromium the tests fail
/// and say to run `scripts/setup`; `BEACON_SKIP_BROWSER=1` skips them, and the skip is reported.
@Suite(
  .serialized, .timeLimit(.minutes(5)),
  .enabled(if: !Chromium.skipRequested, "BEACON_SKIP_BROWSER=1: the HTML report is not checked in a browser"))
struct AuditHTMLBrowserTests {
  static let report = AuditHTMLFixture.report
  /// The package's root, three folders up from this file.
  static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  func chromium() throws -> Chromium {
    try #require(
      Chromium.find(),
      "chromium is not installed: run scripts/setup (or set BEACON_SKIP_BROWSER=1 to skip the browser tests)")
  }

  /// Writes `html` to a new folder; `body` gets the browser, the file and the folder, which goes afterwards.
  func withPage<T>(_ html: String, _ body: (Chromium, String, String) async throws -> T) async throws -> T {
    let browser = try chromium()
    let directory = try LocalTools.temporaryDirectory("audit-html")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let file = directory + "/audit.html"
    try html.write(toFile: file, atomically: true, encoding: .utf8)
    return try await body(browser, file, directory)
  }

  /// The DOM of `report`'s page, opened at `fragment`, once its scripts ran; the page must have written
  /// nothing to its console and set `body[data-ready="1"]`.
  func loaded(_ report: AuditReport, fragment: String? = nil) async throws -> HTMLScan {
    try await withPage(AuditHTML.render(report)) { browser, file, directory in
      let run = try await browser.dumpDOM(Chromium.url(file, fragment: fragment), in: directory)
      #expect(run.console.isEmpty, "console: \(run.console.joined(separator: "\n"))")
      let dom = HTMLScan(run.stdout)
      #expect(dom.tags("body", with: "data-ready").first?["data-ready"] == "1")
      return dom
    }
  }

  @Test(.timeLimit(.minutes(2))) func theScriptsRunCleanlyAndTheDOMHasTheSummarysNumbers() async throws {
    let dom = try await loaded(Self.report)
    let rows = dom.tags("tr", with: "data-address")
    #expect(rows.map { $0["data-address"] } == Self.report.devices.map(\.address))
    #expect(rows.allSatisfy { $0["hidden"] == nil })
    #expect(dom.element(id: "visible-count")?.text == "\(Self.report.devices.count)")
    #expect(dom.tags("div", with: "id").first { $0["id"] == "controls" }?["hidden"] == nil)
    #expect(dom.element(id: "devices")?.tags("button", with: "type").count == AuditHTMLTable.columns.count)
    #expect(!dom.html.contains("<img"))
    AuditHTMLTests.expectChartsCount(Self.report.summary, in: dom)
  }

  @Test(.timeLimit(.minutes(2))) func anEmptyReportRunsCleanly() async throws {
    let dom = try await loaded(AuditHTMLFixture.empty)
    #expect(dom.element(id: "visible-count")?.text == "0")
    #expect(dom.tags("p", with: "id").first { $0["id"] == "no-match" }?["hidden"] == nil)
  }

  @Test(.timeLimit(.minutes(2))) func theFragmentFiltersByStatus() async throws {
    let dom = try await loaded(Self.report, fragment: "filter=drifted")
    let visible = dom.tags("tr", with: "data-address").filter { $0["hidden"] == nil }
    #expect(visible.map { $0["data-status"] } == Array(repeating: "drifted", count: Self.report.summary.status.drifted))
    #expect(dom.element(id: "visible-count")?.text == "\(Self.report.summary.status.drifted)")
    #expect(dom.element(id: "filter-note")?.text == "(filtered by status drifted)")
    let details = dom.tags("tr", with: "class").filter { $0["class"] == "detail" }
    #expect(details.filter { $0["hidden"] == nil }.count == 2 && details.count == 3)
  }

  @Test(.timeLimit(.minutes(2))) func theFragmentSearchesAndSortsWithUnknownValuesLast() async throws {
    let sorted = try await loaded(Self.report, fragment: "sort=rssi&dir=desc")
    let byRSSI =
      Self.report.devices.filter { $0.rssi != nil }.sorted { $0.rssi! > $1.rssi! }
      + Self.report.devices.filter { $0.rssi == nil }
    #expect(sorted.tags("tr", with: "data-address").map { $0["data-address"] } == byRSSI.map(\.address))
    // Each drift row moved with its device: right under it.
    let all = sorted.tags.filter { $0.name == "tr" && ($0["data-address"] != nil || $0["class"] == "detail") }
    for (row, next) in zip(all, all.dropFirst() + [HTMLScan.Tag(name: "end", attributes: [:])]) {
      #expect((row["class"] == "has-detail") == (next["class"] == "detail"), "\(row) then \(next)")
    }
    #expect(
      all.filter { $0["class"] == "detail" }.count
        == Self.report.devices.filter { AuditHTMLDrift.details($0) != nil }.count)

    let searched = try await loaded(Self.report, fragment: "q=dock&sort=name")
    let rows = searched.tags("tr", with: "data-address").filter { $0["hidden"] == nil }
    #expect(rows.map { $0["data-address"] } == ["C3:00:00:00:00:05", "C3:00:00:00:00:06"])
    #expect(searched.element(id: "visible-count")?.text == "2")
  }

  /// The console check can fail: a page whose script throws, and one whose markup an injected handler would
  /// run from, both show up (so an empty console above means a clean page, not a deaf check).
  @Test(.timeLimit(.minutes(2))) func aScriptErrorReachesTheConsoleCheck() async throws {
    let broken = AuditHTML.render(Self.report).replacingOccurrences(
      of: "<footer>", with: "<img src=x onerror=\"alert(1)\"><footer>")
    try await withPage(broken) { browser, file, directory in
      let run = try await browser.dumpDOM(Chromium.url(file), in: directory)
      #expect(run.console.contains { $0.contains("Content Security Policy") }, "console: \(run.console)")
    }
    try await withPage("<!DOCTYPE html><title>t</title><script>undefinedFunction()</script>") {
      browser, file, directory in
      let run = try await browser.dumpDOM(Chromium.url(file), in: directory)
      #expect(run.console.contains { $0.contains("Uncaught ReferenceError") }, "console: \(run.console)")
    }
  }

  /// The page and its screenshot stay under `.build` (`audit-report.html`, `audit-report.png`) to be looked at.
  @Test(.timeLimit(.minutes(2))) func aScreenshotIsWrittenUnderBuild() async throws {
    let html = AuditHTML.render(Self.report)
    let build = Self.packageRoot.appendingPathComponent(".build")
    try FileManager.default.createDirectory(at: build, withIntermediateDirectories: true)
    try html.write(to: build.appendingPathComponent("audit-report.html"), atomically: true, encoding: .utf8)
    try await withPage(html) { browser, file, directory in
      let png = build.appendingPathComponent("audit-report.png").path
      try? FileManager.default.removeItem(atPath: png)
      let run = try await browser.screenshot(Chromium.url(file), to: png, width: 1280, height: 2000, in: directory)
      #expect(run.console.isEmpty, "console: \(run.console.joined(separator: "\n"))")
      let data = try Data(contentsOf: URL(fileURLWithPath: png))
      #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
      // IHDR: width and height, big-endian, at bytes 16 and 20.
      let size = [16, 20].map { at in data[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
      #expect(size == [1280, 2000])
      #expect(data.count > 50_000, "\(data.count) bytes: a blank page?")
    }
  }
}
