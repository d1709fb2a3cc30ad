import Foundation
import JSON
import Presence

/// The monitor's presence state in its state directory, `monitor-state.json`, so a restart does not fire events again: written every
/// registry interval and at the end, read at the start, so a restarted monitor neither re-fires enter,
/// session-open, battery-low or trigger-once events nor forgets a device that left while it was down.
///
/// [I] A JSON file written atomically (a temporary file renamed over it) rather than journal tables: it is
/// replaced whole each time, holds nothing the journal's queries need, and a torn write cannot leave half a
/// state. A file that cannot be read or decoded is warned about and set aside as `monitor-state.json.bad`;
/// the monitor then starts afresh, as before this file existed.
struct MonitorStateFile: Sendable {
  let path: String

  init(stateDirectory: String) { path = stateDirectory + "/monitor-state.json" }

  func load(warn: @Sendable (String) -> Void) -> PresenceState? {
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    do {
      let data: Data
      do {
        data = try Data(contentsOf: URL(fileURLWithPath: path))
      } catch {
        throw JSONDiagnostic(file: path, position: nil, path: .root, message: "cannot be read (\(error))")
      }
      let state = try JSONFileDecoder(file: path).decode(PresenceState.self, from: data)
      guard state.schema == PresenceState().schema else {
        warn(
          "\(path): schema \(state.schema) is not \(PresenceState().schema); starting without the kept presence state")
        return nil
      }
      return state
    } catch {
      try? FileManager.default.removeItem(atPath: path + ".bad")
      try? FileManager.default.moveItem(atPath: path, toPath: path + ".bad")
      warn("\(error); moved to \(path).bad, starting without the kept presence state")
      return nil
    }
  }

  /// Compact JSON, keys sorted, in the JSON module's one writer.
  func save(_ state: PresenceState) throws {
    try Data(try JSONValueEncoder().text(state).utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
  }
}
