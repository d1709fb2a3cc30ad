import KBeacon
import Testing

@testable import Profiles

/// fuzz-device-answer's first find: a device reporting slot 0's `type` as 1e400 — the getPara
/// answer `{"maxSlot":5,"advObj":[{"slot":0,"type":1e400,"advPrd":1000.0}]}`, whose 1e400 parses as +∞ —
/// trapped in `SlotTypeChange` ("Double value cannot be converted to Int because it is either infinite or
/// NaN") when a profile set that slot's type. It is a type no profile sets: the slot changes type.
@Suite(.timeLimit(.minutes(1))) struct SlotTypeChangeHostileTests {
  /// The crashing input's bytes as the fuzzer wrote them.
  static let answer: [UInt8] = Array(#"{"maxSlot":5,"advObj":[{"slot":0,"type":1e400,"advPrd":1000.0}]}"#.utf8)

  @Test func anInfiniteSlotTypeFromADeviceIsAChangeNotATrap() throws {
    // The answer as the device's model reads it (Profiles' KBeaconViews then gives the diff view below).
    let read = try ReadResponse.parse(Self.answer, generation: .pro)
    let type = try #require(read.slots.first?.fields["type"]?.doubleValue)
    #expect(type == .infinity)
    let actual = DeviceConfigView(slots: [0: ["slot": .integer(0), "type": .number(type), "advPrd": .number(1000)]])
    let profile = try ProfileDecoder.decode(
      Array(#"{"version": 1, "desired": {"slots": [{"slot": 0, "type": "ibeacon", "intervalMs": 760}]}}"#.utf8),
      file: "p.json", urlCheck: testURLCheck)
    guard
      case .success(let desired) = DesiredResolver(urlCheck: testURLCheck).resolve(
        profile.desired, TemplateVariables(address: "DD:34:02:06:D1:01", index: 0))
    else {
      Issue.record("the profile does not resolve")
      return
    }
    #expect(SlotTypeChange.changedSlots(desired: desired, actual: actual) == [0])
    let problems = SlotTypeChange.problems(profile: profile, desired: desired, actual: actual)
    #expect(problems.count == 1 && problems[0].contains("slot 0 changes from type inf to ibeacon"), "\(problems)")
  }
}
