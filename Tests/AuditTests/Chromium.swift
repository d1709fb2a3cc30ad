import Foundation
import TestServers

/// Headless Chromium (Debian's `chromium`, installed by `scripts/setup`) for the HTML report's browser test:
/// load a page, let its scripts run, and hand back the DOM as it then is (`--dump-dom`) or a screenshot,
/// with every message the page wrote to its console (`--enable-logging=stderr` puts each on standard error
/// as a `CONSOLE` line: `console.*` calls, uncaught exceptions and Content-Security-Policy refusals alike).
/// Each run has its own profile folder, so runs never meet in a shared one.
struct Chromium {
  /// What one run left behind.
  struct Run {
    var stdout: String
    /// The page's console messages, one per line as Chromium logs them.
    var console: [String]
  }

  let path: String

  /// `BEACON_SKIP_BROWSER=1`: the browser tests are skipped (and reported as skipped) rather than failing
  /// on a machine without Chromium.
  static var skipRequested: Bool { ProcessInfo.processInfo.environment["BEACON_SKIP_BROWSER"] == "1" }

  /// `chromium` on `PATH`, or nil.
  static func find() -> Chromium? {
    let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    return folders.map { "\($0)/chromium" }.first { FileManager.default.isExecutableFile(atPath: $0) }.map(
      Chromium.init)
  }

  /// `file:///…/audit.html#filter=drifted`.
  static func url(_ file: String, fragment: String? = nil) -> String {
    URL(fileURLWithPath: file).absoluteString + (fragment.map { "#" + $0 } ?? "")
  }

  /// The DOM after the page's scripts ran.
  func dumpDOM(_ url: String, in directory: String) async throws -> Run {
    try await run(["--dump-dom", url], in: directory)
  }

  /// A PNG of the page's first `width` × `height` pixels.
  func screenshot(_ url: String, to png: String, width: Int, height: Int, in directory: String) async throws -> Run {
    try await run(["--screenshot=\(png)", "--window-size=\(width),\(height)", "--hide-scrollbars", url], in: directory)
  }

  func run(_ arguments: [String], in directory: String) async throws -> Run {
    let profile = "\(directory)/chromium-profile-\(UUID().uuidString.prefix(8))"
    let options = [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
      "--no-default-browser-check",
      "--disable-extensions", "--disable-background-networking", "--disable-component-update", "--mute-audio",
      "--user-data-dir=\(profile)", "--enable-logging=stderr", "--v=0",
    ]
    let result = try await LocalTools.output(path, options + arguments, in: directory, within: 90)
    guard result.status == 0 else {
      throw ServerError(
        "chromium \(arguments.joined(separator: " ")) exited \(result.status):\n\(result.stderr.suffix(3_000))")
    }
    let console = result.stderr.split(separator: "\n").filter { $0.contains(":CONSOLE") }.map(String.init)
    return Run(stdout: result.stdout, console: console)
  }
}
