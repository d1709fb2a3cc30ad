import BeaconCore
import Foundation
import Logging

/// Where the tool's log records go: a level and a line writer, scoped to a task and its children
/// (`LoggingOptions.activate`; tests capture the lines). Outside any scope: warning and up, to stderr.
enum CLILog {
  struct Destination: Sendable {
    var level: Logger.Level
    var write: @Sendable (String) -> Void
  }

  @TaskLocal static var destination = Destination(level: .warning, write: standardError)

  static let standardError: @Sendable (String) -> Void = { line in
    FileHandle.standardError.write(Data((line + "\n").utf8))
  }

  /// A logger whose records follow the current `destination` (no global `LoggingSystem.bootstrap`, so
  /// tests in one process can each have their own).
  static func logger(_ label: String) -> Logger {
    Logger(label: "beacon-provision." + label) { StderrLogHandler(label: $0) }
  }
}

/// A `LogHandler` writing one line per record — `2026-11-23T20:11:19.123Z debug beacon-provision.kbeacon:
/// authenticated device=DD:34:02:06:D1:01` — to the task's `CLILog.destination`, whose level it takes
/// unless one was set on the logger. Metadata is printed sorted, `key=value`.
struct StderrLogHandler: LogHandler {
  let label: String
  var metadata: Logger.Metadata = [:]
  private var fixedLevel: Logger.Level?

  init(label: String) { self.label = label }

  var logLevel: Logger.Level {
    get { fixedLevel ?? CLILog.destination.level }
    set { fixedLevel = newValue }
  }

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    let destination = CLILog.destination
    guard event.level >= (fixedLevel ?? destination.level) else { return }
    destination.write(
      Self.line(
        time: Date(), level: event.level, label: label, message: event.message.description,
        metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
  }

  /// RFC 3339 in UTC with milliseconds (`2026-11-29T06:02:00.123Z`): a value, made once, where a formatter
  /// object was made for every line.
  static let timeStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

  /// The line for one record: one line, whatever its message and metadata carry (a device's name, a server's
  /// text): control characters are shown as `\u{XX}` (`TerminalText`).
  static func line(time: Date, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) -> String
  {
    var text = "\(time.formatted(Self.timeStyle)) \(level) \(label): \(message)"
    for key in metadata.keys.sorted() { text += " \(key)=\(metadata[key]!)" }
    return text.terminalSafe
  }
}
