import FleetIO

/// A catalogue campaign on a named shared run (`dfu update --firmware … --journal --run ID`, `reconcile
/// --firmware` with a PostgreSQL journal) reads its devices before any package is fetched, and leaves out
/// those another gateway alive in the run hears clearly better (`GatewayCoordinator.leftToNearer`). Gateways
/// started together would each survey before the other had joined, and both read every device, holding the
/// links the other wanted: so such a campaign joins the run, makes itself present (`SiteCampaign.announce`:
/// its sightings, its heartbeat, the `--gateways/--settle` wait) and only then surveys.
extension CampaignPipeline {
  /// The heartbeat of this gateway's presence in the run (to cancel once `prepare` ended), or nil when the
  /// plan does not survey, the journal is not shared or the run is not named yet.
  func announceBeforeSurvey(
    _ plan: some CampaignPlan, _ selection: CampaignSelection, _ resources: CampaignResources
  ) async throws -> Task<Void, Never>? {
    guard plan.surveys, let coordinator = resources.coordinator, let run = selection.sharedRun else { return nil }
    _ = try await SharedRun.join(
      journal: resources.journal, id: run, kind: plan.kind, source: plan.source, adapter: resources.central.name,
      targets: selection.targets, recipe: try await plan.recipe())
    let site = SharedRun.siteCampaign(
      coordinator, run: run, targets: selection.targets, options: settings.shared, parallel: settings.parallel)
    return try await site.announce()
  }
}
