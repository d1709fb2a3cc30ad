import Fleet
import Foundation
import Metrics

/// `reconcile --metrics HOST:PORT` running: the HTTP server of `ReconcileMetrics` and the probe that feeds
/// `/healthz`'s journal check — [I] every 5 s, one lookup in the journal the campaigns write (the SQLite
/// journal in the state directory), off the loop, so a journal that stops answering shows as unhealthy while
/// the loop itself waits on it.
struct ReconcileMetricsService: Sendable {
  let server: MetricsServer
  let probe: Task<Void, Never>

  static func start(_ metrics: ReconcileMetrics, _ endpoint: String, journal: any CampaignJournal) throws
    -> ReconcileMetricsService
  {
    let probe = Task {
      while !Task.isCancelled {
        metrics.journalProbing()
        do {
          _ = try await journal.run("reconcile-health-probe")
          metrics.journalProbed(problem: nil)
        } catch {
          metrics.journalProbed(problem: "\(journal.location): \(error)")
        }
        try? await Task.sleep(for: .seconds(5))
      }
    }
    do {
      let server = try MetricsServer(try MetricsEndpoint(endpoint), routes: metrics.routes)
      FileHandleOutput.standardError("reconcile: metrics on http://\(server.address)/metrics, /healthz")
      return ReconcileMetricsService(server: server, probe: probe)
    } catch {
      probe.cancel()
      throw CLIFailure(error.description)
    }
  }

  func stop() {
    server.stop()
    probe.cancel()
  }
}
