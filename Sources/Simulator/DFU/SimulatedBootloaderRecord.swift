import Foundation
import JSON

/// What a simulated device's Secure DFU bootloader keeps where a new run of the simulation finds it: the
/// device is in its bootloader, advertising `name`, with the init command and the firmware objects it
/// executed so far (docs/protocols/nordic-dfu.md §2.5–2.6). A real nRF52 keeps these in flash (the SDK's
/// settings page and the bank the image goes to), so a gateway that dies mid-transfer leaves a device that
/// another run — a `--resume`, another gateway — finds waiting in its bootloader, and whose Select answers
/// show what it already has. The simulator runs inside the tool's process; without this record a `kill -9`
/// took the bootloader with it and the device came back in its old application at once.
///
/// [I] Choices, each easy to change:
/// - Kept: executed objects only. An object half received when the run stopped is lost (its bytes were in
///   RAM), so a Select Data answers the executed offset; the SDK may keep more, and a client resumes either way.
/// - `lastActivity` is the wall-clock time of the last save: the entry, then each executed object. A later run
///   finds the device still in its bootloader only while `lastActivity` + the inactivity timeout is ahead
///   (`isRunning(at:timeout:)`); after that the old application runs again, as the real device's timer
///   would have brought it back. A timeout is never saved: every run reads it off the same two numbers.
/// - `session` names one stay in the bootloader (a random number at its entry), so a run that saw a stay end
///   never brings the same stay back from an older copy of the record.
/// - Faults of the fleet file's `dfu` section belong to the session they were injected into: a bootloader
///   brought back by a later run has none.
public struct SimulatedBootloaderRecord: Sendable, Hashable {
  public var name: String
  public var session: UInt64
  /// Milliseconds since 1970.
  public var lastActivity: Int64
  /// The executed init command (empty before one was executed).
  public var command: [UInt8]
  /// The firmware bytes of the executed data objects.
  public var image: [UInt8]

  public init(name: String, session: UInt64, lastActivity: Int64, command: [UInt8] = [], image: [UInt8] = []) {
    self.name = name
    self.session = session
    self.lastActivity = lastActivity
    self.command = command
    self.image = image
  }

  /// A new stay in the bootloader, now.
  public static func entered(name: String, at now: Date = Date()) -> SimulatedBootloaderRecord {
    SimulatedBootloaderRecord(name: name, session: UInt64.random(in: 1...UInt64.max), lastActivity: milliseconds(now))
  }

  public static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

  /// True while the inactivity timer that started at `lastActivity` has not run out at `now`.
  public func isRunning(at now: Date, timeout: Duration) -> Bool { remaining(at: now, timeout: timeout) > .zero }

  /// How long the bootloader waits from `now` before it gives up (zero or less: it has).
  public func remaining(at now: Date, timeout: Duration) -> Duration {
    .milliseconds(lastActivity) + timeout - .milliseconds(Self.milliseconds(now))
  }

  /// `{"name": …, "session": "…", "lastActivityMs": …, "command": "<base64>", "image": "<base64>"}` (the session
  /// as decimal text: a JSON number loses 64-bit precision in many readers).
  public var json: JSONValue {
    .object(
      JSONObject([
        ("name", .string(name)), ("session", .string(String(session))), ("lastActivityMs", .int(Int(lastActivity))),
        ("command", .string(Data(command).base64EncodedString())),
        ("image", .string(Data(image).base64EncodedString())),
      ]))
  }

  /// The record `json` wrote; nil when any field is missing or damaged.
  public init?(json: JSONValue) {
    guard let object = json.objectValue, let name = object["name"]?.stringValue,
      let session = object["session"]?.stringValue.flatMap({ UInt64($0) }),
      let lastActivity = object["lastActivityMs"]?.intValue,
      let command = object["command"]?.stringValue.flatMap({ Data(base64Encoded: $0) }),
      let image = object["image"]?.stringValue.flatMap({ Data(base64Encoded: $0) })
    else { return nil }
    self.init(
      name: name, session: session, lastActivity: Int64(lastActivity), command: Array(command), image: Array(image))
  }
}
