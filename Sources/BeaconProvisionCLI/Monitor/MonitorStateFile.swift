import Foundation
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
      let data = try Data(contentsOf: URL(fileURLWithPath: path))
      let state = try JSONDecoder().decode(PresenceState.self, from: data)
      guard state.schema == PresenceState().schema else {
        warn(
          "\(path): schema \(state.schema) is not \(PresenceState().schema); starting without the kept presence state")
        return nil
      }
      return state
    } catch {
      try? FileManager.default.removeItem(atPath: path + ".bad")
      try? FileManager.default.moveItem(atPath: path, toPath: path + ".bad")
      warn("\(path) cannot be read (\(error)); moved to \(path).bad, starting without the kept presence state")
      return nil
    }
  }

  func save(_ state: PresenceState) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    try encoder.encode(state).write(to: URL(fileURLWithPath: path), options: .atomic)
  }
}
