import Audit
import BeaconCore
import InfoManager
import InfoManagerIO

/// The audit's "Info Manager" column: the blukii modules among the audit's scan records, resolved
/// in one batch (with the resolve cache, as `resolve` does) when an Info Manager is configured. A resolve that
/// fails as a whole (a refused request, a malformed answer) only warns: the audit is still written, with
/// those modules `unknown`.
enum AuditInfoManagerLookup {
  struct Outcome {
    /// The server asked (no secrets); nil when resolve is not configured.
    var server: String?
    /// By device address.
    var registrations: [String: AuditInfoManager] = [:]
  }

  static func lookUp(_ records: [DeviceRecord], options: InfoManagerOptions, cacheTimeout: Double?) async throws
    -> Outcome
  {
    guard let configuration = try await options.resolvedConfiguration() else { return Outcome() }
    var outcome = Outcome(server: RedactedURL(configuration.endpoints.root).description)
    let modules = records.compactMap { BlukiiModule(record: $0, window: 0) }
    guard !modules.isEmpty else { return outcome }
    let resolution = BatchResolution(
      source: .blukii, languages: .sdkDefault,
      cacheTimeout: cacheTimeout ?? configuration.cacheTimeout ?? ResolveCache.defaultTimeout)
    var byID: [String: ResolveResult] = [:]
    do {
      for result in try await ResolveCommand.resolve(
        modules.map(\.id), resolution: resolution, configuration: configuration)
      {
        byID[result.id] = result
      }
    } catch let failure as CLIFailure {
      FileHandleOutput.standardError("audit: warning: the Info Manager column is incomplete: \(failure.message)")
    }
    // A batch whose server cannot be reached answers UNRESOLVED instead of failing: say so, or the report's
    // "0 not registered" reads as a clean bill.
    let unresolved = byID.values.filter { $0.state == .unresolved }
    if let reason = unresolved.first?.reason {
      FileHandleOutput.standardError(
        "audit: warning: the Info Manager \(outcome.server ?? "") could not be reached (\(reason)): "
          + "\(unresolved.count) of \(byID.count) blukii module\(byID.count == 1 ? "" : "s") are marked unknown")
    }
    for module in modules {
      let result = byID[module.id]
      let registration: AuditInfoManager.Registration =
        switch result?.state {
        case .resolved?, .cached?: .registered
        case .noData?: .notRegistered
        case .unresolved?, nil: .unknown
        }
      outcome.registrations[module.address.description] = AuditInfoManager(
        id: module.id, registration: registration, infoPoint: result?.infoPoint?.name)
    }
    return outcome
  }
}
