import Fleet
import Foundation
import Metrics
import Presence
import Profiles

/// What makes `monitor` a service (systemd's contrib/systemd/beacon-provision-monitor.service): the
/// `--metrics` server with its journal probe, and the files read again on SIGHUP.
extension MonitorCommand {
  /// Starts `--metrics`' server and the journal probe that feeds `/healthz` and the spool depth: [I] every
  /// 5 s, the spool's row count in this gateway's journal and one device's row in the fleet registry (the
  /// shared PostgreSQL journal with `--journal`), off the scan loop.
  func serve(_ metrics: MonitorMetrics, spool: WebhookSpool, registry: RegistryRecorder) throws
    -> (server: MetricsServer, probe: Task<Void, Never>)
  {
    let shared = (try? journalLocation.postgresURL()) != nil
    let probe = Task {
      while !Task.isCancelled {
        metrics.journalProbing()
        do {
          let depth = try await spool.count()
          do { _ = try await registry.registry.device("00:00:00:00:00:00") } catch {
            metrics.journalProbed(
              depth: depth, problem: "\(shared ? "the shared journal" : "the fleet registry"): \(error)")
            try? await Task.sleep(for: .seconds(5))
            continue
          }
          metrics.journalProbed(depth: depth, problem: nil)
        } catch {
          metrics.journalProbed(depth: nil, problem: "\(spool.journal.location): \(error)")
        }
        try? await Task.sleep(for: .seconds(5))
      }
    }
    do {
      let server = try MetricsServer(try MetricsEndpoint(self.metrics ?? ""), routes: metrics.routes)
      FileHandleOutput.standardError("monitor: metrics on http://\(server.address)/metrics, /healthz, /presence")
      return (server, probe)
    } catch {
      probe.cancel()
      throw CLIFailure(error.description)
    }
  }

  /// SIGHUP: the events file and inventory read again, or nil with the reason on standard error (the
  /// previous ones stay).
  func reloadFiles() async -> (EventFile, Inventory?)? {
    let command = self
    do {
      let loaded = try await BlockingIO.run { () throws -> (EventFile, Inventory?) in
        let file = try command.loadEvents()
        let inventory = try command.inventory.map { try AuditRunner.loadInventory($0, identities: true) }
        if let inventory, let path = command.inventory {
          do { try MonitorInventoryColumns.validate(inventory, file: path) } catch { throw CLIFailure("\(error)") }
        }
        return (file, inventory)
      }
      let files = [command.events, command.inventory].compactMap { $0 }
      FileHandleOutput.standardError(
        "monitor: reloaded \(files.isEmpty ? "(no files: the standard events)" : files.joined(separator: " and ")): \(loaded.0.definitions.count) events\(loaded.1.map { ", \($0.rows.count) inventory devices" } ?? "")"
      )
      return loaded
    } catch {
      FileHandleOutput.standardError("monitor: reload refused, the previous events file and inventory stay: \(error)")
      return nil
    }
  }
}
