import CampaignPipeline
import Fleet
import Profiles

/// One profile `reconcile` keeps its devices to, as read from disk (with its inventory and passwords), and
/// the content fingerprint a device is verified against: the run recipe's text (the SHA-256 of the profile
/// and its inventory, `ProfileFiles.loadForRun`), so editing either makes every device of it due again.
struct ReconcileProfile: Sendable {
  var path: String
  var plan: ProfileCampaignPlan
  var fingerprint: String { plan.runRecipe.text }
  var loaded: LoadedProfile { plan.profile }

  /// Reads every profile off the cooperative pool; the first that does not load is the error (its file and
  /// JSON path, as `apply` says them).
  static func load(_ paths: [String]) async throws -> [ReconcileProfile] {
    var profiles: [ReconcileProfile] = []
    for path in paths {
      let plan = try await ApplyInvocation.profilePlan(path: path, dryRun: false)
      if plan.profile.profile.commands != nil {
        throw CLIFailure("\(path): reconcile keeps KBeacon profiles; a `commands` profile is for apply")
      }
      profiles.append(ReconcileProfile(path: path, plan: plan))
    }
    return profiles
  }
}
