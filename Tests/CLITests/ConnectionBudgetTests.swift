import Testing

@testable import BeaconProvisionCLI

/// `reconcile --max-connections-per-hour` (`ConnectionBudget`): connections spent in the last hour count, older
/// ones do not, and connections that never started (a maintenance window closed first) are given back.
@Suite(.timeLimit(.minutes(1))) struct ConnectionBudgetTests {
  @Test func theLastHoursConnectionsCountAndOnesThatNeverStartedAreGivenBack() {
    var budget = ConnectionBudget(perHour: 5)
    #expect(budget.available(now: 0) == 5)
    budget.spend(3, now: 10)
    budget.spend(1, now: 20)
    #expect(budget.available(now: 30) == 1)
    budget.refund(2, spentAt: 10)
    #expect(budget.available(now: 30) == 3)
    budget.refund(5, spentAt: 10)  // only what was spent then comes back
    #expect(budget.available(now: 30) == 4)
    #expect(budget.available(now: 20 + 3600) == 5, "an hour later nothing counts")
    var unlimited = ConnectionBudget(perHour: nil)
    unlimited.spend(100, now: 0)
    #expect(unlimited.available(now: 0) == .max)
  }
}
