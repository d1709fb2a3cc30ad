import Testing

@testable import Profiles

/// Plans name trigger actions as the profile does (`"actions": ["alert"]`), not as the bitmask the
/// device keeps (docs/protocols/kbeacon.md §6.5 `trAct`: 0x1 advertise, 0x2 alert, 0x4 record, …).
@Suite("Change names", .timeLimit(.minutes(1))) struct ChangeNamesTests {
  @Test func triggerActionsReadWithTheirProfileNames() {
    #expect(
      ConfigChange(scope: .trigger(0), key: "trAct", old: nil, new: .integer(2)).description
        == "trigger 0 trAct: (unset) -> alert (2)")
    #expect(
      ConfigChange(scope: .trigger(0), key: "trAct", old: .integer(0), new: .integer(5)).description
        == "trigger 0 trAct: none (0) -> advertise, record (5)")
    // A bit no flag names stays a number.
    #expect(
      ConfigChange(scope: .trigger(0), key: "trAct", old: .integer(0x42), new: .integer(1)).description
        == "trigger 0 trAct: 66 -> advertise (1)")
  }
}
