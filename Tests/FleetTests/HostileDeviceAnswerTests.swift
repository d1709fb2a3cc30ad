import JSON
import KBeacon
import Profiles
import Testing

@testable import Fleet

/// A faulty or hostile device's configuration answer (one once crashed `plan`) goes through the same path as `plan`:
/// the `getPara` bytes, the KBeacon model, the diff view, the plan lines. A value beyond `Int` once trapped
/// when the plan was rendered.
@Suite("Hostile device answers in a plan", .timeLimit(.minutes(2)))
struct HostileDeviceAnswerTests {
  @Test func anAnswerCarrying1e300IsShownInThePlan() throws {
    let answer = #"{"maxSlot":5,"maxPrd":-1e400,"advObj":[{"slot":0,"type":5,"advPrd":1e300,"majorID":1e300}]}"#
    let actual = KBeaconViews.view(of: try ReadResponse.parse(Array(answer.utf8), generation: .pro))
    let desired = DeviceConfigView(slots: [0: ["advPrd": .number(1000), "majorID": .integer(7)]])
    let plan = ConfigDiff.changes(desired: desired, actual: actual).map(\.description)
    #expect(plan == ["slot 0 advPrd: 1e+300 -> 1000", "slot 0 majorID: 1e+300 -> 7"])
    #expect(
      DeviceChecks.problems(desired: desired, actual: actual) == [
        "slot 0 interval 1000 ms is above this device's maximum -inf ms"
      ])
  }

  /// A slot whose `type` the device reports as 1e400 (+∞ once parsed) is written back as the slot's
  /// identity when another key of it changes; a number JSON cannot spell is left out instead of trapping.
  @Test func aPatchCarryingAnInfiniteDeviceValueIsWrittenWithoutIt() throws {
    let answer = #"{"maxSlot":5,"advObj":[{"slot":0,"type":1e400,"advPrd":1000.0}]}"#
    let actual = KBeaconViews.view(of: try ReadResponse.parse(Array(answer.utf8), generation: .pro))
    let desired = DeviceConfigView(slots: [0: ["advPrd": .number(2000)]])
    let patch = ConfigDiff.patch(ConfigDiff.changes(desired: desired, actual: actual), desired: desired, actual: actual)
    let message = KBeaconViews.configuration(of: patch)
    #expect(message.slots.map { JSONWriter.text(.object($0.fields)) } == [#"{"slot":0,"advPrd":2000}"#])
  }
}
