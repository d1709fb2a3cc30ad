import Testing

@testable import FleetIO

/// `NearestGatewayRule`: each device to the gateway that hears it clearly best.
@Suite(.timeLimit(.minutes(2))) struct NearestGatewayRuleTests {
  typealias S = NearestGatewayRule.Sighting

  @Test func leavesADeviceToAGatewayThatHeardItAtLeastTheMarginBetter() {
    let rule = NearestGatewayRule(margin: 6)
    let sightings = [S(gateway: "a", rssi: -80), S(gateway: "b", rssi: -74), S(gateway: "c", rssi: -70)]
    #expect(rule.decide(gateway: "a", sightings: sightings) == .leave(to: "c", rssi: -70))
    // b is only 4 dB worse than c: within the margin, b may take it (the lease decides between equals).
    #expect(rule.decide(gateway: "b", sightings: sightings) == .take)
    #expect(rule.decide(gateway: "c", sightings: sightings) == .take)
  }

  @Test func exactlyTheMarginIsClearlyBetterAndOneLessIsNot() {
    let rule = NearestGatewayRule(margin: 6)
    #expect(
      rule.decide(gateway: "a", sightings: [S(gateway: "a", rssi: -80), S(gateway: "b", rssi: -74)])
        == .leave(to: "b", rssi: -74))
    #expect(rule.decide(gateway: "a", sightings: [S(gateway: "a", rssi: -80), S(gateway: "b", rssi: -75)]) == .take)
    #expect(
      NearestGatewayRule(margin: 10).decide(
        gateway: "a", sightings: [S(gateway: "a", rssi: -80), S(gateway: "b", rssi: -74)]) == .take)
  }

  @Test func aGatewayThatDoesNotHearTheDeviceNeverTakesIt() {
    let rule = NearestGatewayRule()
    #expect(rule.decide(gateway: "a", sightings: []) == .notHeard)
    #expect(rule.decide(gateway: "a", sightings: [S(gateway: "b", rssi: -90)]) == .notHeard)
  }

  @Test func betterGatewaysTiedOnRSSIAreChosenByName() {
    let rule = NearestGatewayRule()
    let sightings = [S(gateway: "a", rssi: -90), S(gateway: "z", rssi: -60), S(gateway: "m", rssi: -60)]
    #expect(rule.decide(gateway: "a", sightings: sightings) == .leave(to: "m", rssi: -60))
  }
}

/// Which targets a catalogue campaign's survey leaves out on a shared run: those another gateway heard
/// clearly better lately (`GatewayCoordinator.leftToNearer`), as the claim would leave them.
@Suite(.timeLimit(.minutes(1))) struct SurveyScopeTests {
  @Test func onlyDevicesAnotherGatewayHeardClearlyBetterAreLeftOut() {
    typealias S = NearestGatewayRule.Sighting
    let left = GatewayCoordinator.leftToNearer(
      gateway: "gw-1", mine: ["A": -75, "B": -55, "C": -70, "D": -127],
      others: [
        "A": [S(gateway: "gw-2", rssi: -55)], "C": [S(gateway: "gw-2", rssi: -66)],
        "D": [S(gateway: "gw-3", rssi: -127)],
      ],
      rule: NearestGatewayRule(margin: 6))
    // A: gw-2 20 dB better. B: nobody else. C: 4 dB, within the margin. D: equals without an RSSI.
    #expect(left == ["A": "gw-2"])
  }
}
