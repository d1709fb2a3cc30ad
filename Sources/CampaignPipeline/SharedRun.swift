import BeaconCore
import Fleet
import FleetIO
import Foundation

/// How `apply` and `dfu update` run on a journal several gateways share: join (or start) the run several
/// gateways share, then take this gateway's part of it (`SiteCampaign`).
public enum SharedRun {
  /// Creates the run `id` (a new id when nil) or joins it, adding the devices this gateway heard; a run of
  /// another kind, or made from another recipe (`RunRecipe`: another profile or package), under that id is
  /// refused, saying how to start a new run.
  public static func join(
    journal: any CampaignJournal, id: String?, kind: String, source: String, adapter: String, targets: [Target],
    recipe: RunRecipe
  ) async throws -> String {
    if let id, let existing = try await journal.run(id), existing.kind != kind {
      throw CampaignFailure(
        "run \(id) in \(journal.location) is a \(existing.kind) run, not \(kind == "dfu" ? "a" : "an") \(kind)")
    }
    do {
      return try await journal.createRun(
        kind: kind, source: source, adapter: adapter, addresses: targets.map(\.address.description),
        addressTypes: Target.addressTypes(targets), id: id, recipe: recipe.text)
    } catch let mismatch as RunRecipeMismatch {
      throw CampaignFailure(mismatch.description)
    }
  }

  /// `--resume RUN` on this machine's journal: the run must have been made from `recipe` (a run journalled
  /// before recipes were recorded is accepted).
  public static func checkResume(_ record: JournalRun, journal: any CampaignJournal, recipe: RunRecipe) throws {
    do {
      try RunRecipe.check(run: record.id, location: journal.location, recorded: record.recipe, given: recipe.text)
    } catch {
      throw CampaignFailure(error.description)
    }
  }

  /// Runs the campaign: all `targets` through `batch` at once on one gateway, or, with a `coordinator`,
  /// this gateway's part of the shared run (`site`).
  public static func start(
    _ coordinator: GatewayCoordinator?, run: String, targets: [Target], options: SharedRunSettings, parallel: Int,
    batch: @escaping @Sendable ([Target]) async throws -> CampaignSummary
  ) async throws -> CampaignSummary {
    guard let coordinator else { return try await batch(targets) }
    return try await site(coordinator, run: run, targets: targets, options: options, parallel: parallel, batch: batch)
  }

  /// This gateway's part of `run`: rounds of `parallel` claimed `targets`, after `options`' settle wait.
  static func siteCampaign(
    _ coordinator: GatewayCoordinator, run: String, targets: [Target], options: SharedRunSettings, parallel: Int
  ) -> SiteCampaign {
    SiteCampaign(
      coordinator: coordinator, run: run, targets: targets, batchSize: parallel,
      pollSeconds: min(1, coordinator.settings.renewalSeconds), settle: (options.gateways, options.settle))
  }

  /// This gateway's part of the run: rounds of `parallel` claimed devices through `batch`.
  static func site(
    _ coordinator: GatewayCoordinator, run: String, targets: [Target], options: SharedRunSettings, parallel: Int,
    batch: @escaping @Sendable ([Target]) async throws -> CampaignSummary
  ) async throws -> CampaignSummary {
    let site = siteCampaign(coordinator, run: run, targets: targets, options: options, parallel: parallel)
    do {
      return try await site.start(batch: batch)
    } catch let error as JournalWriteError {
      throw CampaignFailure(
        "run \(run) stopped: \(error). Devices not finished are pending; another gateway or a rerun with --run \(run) finishes them"
      )
    }
  }
}

/// The options of a run several gateways share that the pipeline needs (`--run`, `--gateways`, `--settle`).
public struct SharedRunSettings: Sendable {
  /// The run id several gateways share; nil: a new id (or the one `--resume` names).
  public var run: String?
  /// Before its first claim, wait until this many gateways joined the run, at most `settle` seconds.
  public var gateways: Int
  public var settle: Double

  public init(run: String? = nil, gateways: Int = 1, settle: Double = 60) {
    (self.run, self.gateways, self.settle) = (run, gateways, settle)
  }
}
