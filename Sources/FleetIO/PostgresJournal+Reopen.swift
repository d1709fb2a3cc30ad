import Fleet
import Foundation

extension PostgresJournal {
  /// Puts a settled device of a shared run back to `pending`, so the gateways' next visits of the run take it
  /// up again: `reconcile` reopens a device it saw drift on the air since it was settled, or one that failed
  /// and whose backoff has run out (`ReconcileSiteRuns`).
  ///
  /// Only a device whose row is settled (`states`) and was last recorded more than `settledFor` seconds ago by
  /// the server's clock is reopened, in one statement, so of two gateways reopening it at once one does, and a
  /// gateway whose sighting predates the last visit (it settled within `settledFor`) leaves it alone [I: the
  /// caller passes the age of the scan window that saw the reason; a reopening that still races a visit costs
  /// one more connected check, which finds the device compliant and writes nothing]. A device held by a live
  /// lease is never reopened. The row's changes are cleared: they belong to the visit that settled it, and a
  /// later visit finding the device compliant would otherwise take them for its own write that landed
  /// (`LandedWrite`) and report a write it never made; the write count stays (the run's history). Except for a
  /// firmware visit that failed after its transfer began (a `dfu` run's row at step `transferring` or
  /// `verifying`): its `ver` change stays, with the step `verifying`, so that the next visit, finding the new
  /// version, reports the device updated (`FirmwareWork.installedEarlier`) — with them cleared it said
  /// "skipped: up to date" — and finding the old one, sends the image as usual. [I] Not `transferring`: that
  /// would read as left mid-transfer long after its bootloader timed out, and a visit then tolerates a silent
  /// application. Returns whether it was reopened.
  public func reopen(
    run: String, address: String, states: Set<DeviceState>, settledFor: Double, reason: String
  ) async throws -> Bool {
    let list = "{" + states.map(\.rawValue).sorted().joined(separator: ",") + "}"
    let gateway = gateway
    return try await write { s in
      try s.transaction {
        let reopened =
          try s.query(
            """
            UPDATE bp_device SET state = 'pending',
                step = CASE WHEN \(Self.transferBegun) THEN '\(VisitStep.verifying.rawValue)' END,
                changes = CASE WHEN \(Self.transferBegun) THEN changes END, detail = $1, failure_kind = NULL,
                updated_at = now(),
              gateway = $2 WHERE run_id = $3 AND address = $4 AND state = ANY($5::text[])
              AND updated_at < now() - make_interval(secs => $6::float8)
              AND NOT EXISTS (SELECT 1 FROM bp_lease l WHERE l.run_id = $3 AND l.address = $4 AND l.expires_at > now())
            """, ["reopened by \(gateway): \(reason)", gateway, run, address, list, String(max(0, settledFor))]
          ).affected == 1
        // The run is no longer finished: `campaign status` says "running" until a visit settles the device.
        if reopened { try s.query("UPDATE bp_run SET status = 'running' WHERE id = $1", [run]) }
        return reopened
      }
    }
  }

  /// [I] A device of a firmware run that this gateway's own visit failed mid-transfer (`failed` at step
  /// `transferring`) and that is heard now only as its DFU bootloader: put back to `pending` with its step kept,
  /// so that the run's takeover path (`JournalDevice.isCutShortMidTransfer`, `CampaignPipeline.takeOver`)
  /// finishes it at its waiting bootloader, on whichever gateway claims it. Only a row this gateway recorded
  /// (its schedule holds the failure and its backoff), never one under a live lease; one statement, so two
  /// reopenings make one. Returns whether it was reopened.
  public func reopenInBootloader(run: String, address: String) async throws -> Bool {
    let gateway = gateway
    return try await write { s in
      try s.transaction {
        let reopened =
          try s.query(
            """
            UPDATE bp_device SET state = 'pending', detail = $1, failure_kind = NULL, updated_at = now()
              WHERE run_id = $2 AND address = $3 AND gateway = $4 AND state = 'failed'
              AND step = '\(VisitStep.transferring.rawValue)'
              AND NOT EXISTS (SELECT 1 FROM bp_lease l WHERE l.run_id = $2 AND l.address = $3 AND l.expires_at > now())
            """, ["reopened by \(gateway): left in its DFU bootloader", run, address, gateway]
          ).affected == 1
        if reopened { try s.query("UPDATE bp_run SET status = 'running' WHERE id = $1", [run]) }
        return reopened
      }
    }
  }

  /// A failed row of a firmware run whose transfer had begun (the SET expressions see the row as it was; a
  /// configuration visit also has a `verifying` step, after a password change, whose changes must go).
  static let transferBegun = """
    state = 'failed' AND step IN ('\(VisitStep.transferring.rawValue)', '\(VisitStep.verifying.rawValue)')
      AND EXISTS (SELECT 1 FROM bp_run r WHERE r.id = bp_device.run_id AND r.kind = 'dfu')
    """
}
