import Foundation
import FuzzSupport
import Presence
import Profiles

// The monitor's events file (README "Monitor", `EventFileDecoder`): every diagnostic is formatted, and each
// decoded definition's schedule is asked about three moments in the file's own time zone (the window
// arithmetic across midnight, weekdays and date bounds).
Fuzzer.run { data, size in
  let bytes = Fuzzer.bytes(data, size)
  do {
    let file = try EventFileDecoder.decode(bytes, file: "events.json")
    let calendar = file.settings.calendar
    for definition in file.definitions.prefix(16) {
      for moment: TimeInterval in [0, 1_795_000_000, 4_102_444_799] {
        _ = definition.schedule.admits(Date(timeIntervalSince1970: moment), calendar: calendar)
      }
    }
  } catch {
    _ = String(describing: error)
  }
  return 0
}
