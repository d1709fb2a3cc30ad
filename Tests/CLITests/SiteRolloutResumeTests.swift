import CampaignPipeline
import FleetIO
import Foundation
import TestServers
import Testing

@testable import BeaconProvisionCLI

/// `--resume-rollout` on a shared journal (a real PostgreSQL server), as `ReconcileLoop.resumeSiteRollouts` does
/// it in one transaction: this gateway's profiles get their rollout rows with its plan — a profile edited since
/// the stop too, so gateways without `--rollout` hold their devices for it at once — every stopped rollout of
/// the firmware source goes on, another source's stays stopped, and a profile whose site rollout runs another
/// plan is refused by name, as the refusal it is rather than as a journal that cannot be written.
@Suite(.timeLimit(.minutes(2))) struct SiteRolloutResumeTests {
  @Test func resumingWritesThisGatewaysRolloutsAndResumesTheSourcesStoppedOnes() async throws {
    let server = try await PostgresServer.start()
    let url = try await server.createDatabase()
    let journal = try await ReconcileSeveralGatewaysTests.journal(url)
    let plan = try RolloutPlan(rollout: "canary=1,waves=100%", maxFailures: nil)
    let (source, elsewhere) = ("https://fw.example/\nfirmware latest", "https://other.example/\nfirmware latest")
    // The profile before its edit (K1), and another source's rollout: each canary failed, each stopped.
    for key in ["K1\n" + source, "K1\n" + elsewhere] {
      _ = try await ReconcileLoop.changeSiteRollout(
        key, source: String(key.dropFirst(3)), plan: plan, site: journal
      ) { rollout, _ in
        _ = rollout.admit(["D0"], population: 3, plan: plan)
        rollout.record("D0", failed: true)
        _ = rollout.advance(population: 3, plan: plan)
      }
    }
    #expect(try await ReconcileLoop.siteRollouts(of: source, journal)["K1\n" + source]?.stopped != nil)

    let profiles = ["K2\n" + source: "site.json"]
    let written = try await ReconcileLoop.resumeSiteRollouts(profiles, source: source, plan: plan, site: journal)
    #expect(Set(written.keys) == ["K1\n" + source, "K2\n" + source])
    let rows = try await ReconcileLoop.siteRollouts(of: source, journal)
    let edited = try #require(rows["K2\n" + source])
    #expect(edited.plan == plan.text && edited.stopped == nil && edited.stage == 0 && edited.members.isEmpty)
    #expect(rows["K1\n" + source]?.stopped == nil && rows["K1\n" + source]?.stage == 1)
    #expect(try await ReconcileLoop.siteRollouts(of: elsewhere, journal)["K1\n" + elsewhere]?.stopped != nil)

    let other = try RolloutPlan(rollout: "canary=2,waves=100%", maxFailures: nil)
    let error = await #expect(throws: CLIFailure.self) {
      try await ReconcileLoop.resumeSiteRollouts(profiles, source: source, plan: other, site: journal)
    }
    #expect(
      error?.message == "the site's rollout of site.json runs --rollout \(plan.text); this gateway's is "
        + "\(other.text): start it with the same plan")
    #expect(try await ReconcileLoop.siteRollouts(of: source, journal)["K2\n" + source]?.plan == plan.text)
    await journal.connection.close()
    await server.stop()
  }
}
