import Fleet
import Foundation

/// How one gateway takes its share of a campaign several gateways run (one campaign across
/// gateways), on the shared journal's server:
/// - `join` and `heartbeat` keep the gateway's row in `bp_gateway` fresh; `heartbeat` also renews every lease
///   it holds in the run (a background task calls it every `CoordinationSettings.renewalSeconds`).
/// - `recordSightings` stores the RSSI at which it hears each device (its latest per device).
/// - `claim` takes a device before the gateway connects: not when the journal says it is done, not when a
///   live lease of another gateway holds it, not when a live gateway heard it clearly better lately
///   (`NearestGatewayRule`). The lease is one row per device, inserted or taken over in one statement whose
///   condition is checked by the server, so two gateways never both hold it.
/// - A lease is held by this process's instance (`PostgresJournal.instance`), not by the gateway's name: a
///   second process started under the same name cannot retake it, and a restarted gateway waits for its
///   dead predecessor's leases to expire like any other gateway. Each claim draws a new
///   generation, the fencing token every later journal write of the device checks (`LeaseFence`).
/// - `release` gives it back once the device's end is journalled.
/// Every time is the server's clock (`now()`), so gateways' clocks need not agree.
public struct GatewayCoordinator: Sendable {
  public let journal: PostgresJournal
  public let settings: CoordinationSettings
  public var gateway: String { journal.gateway }

  public init(journal: PostgresJournal, settings: CoordinationSettings = CoordinationSettings()) {
    self.journal = journal
    self.settings = settings
  }

  public enum Claim: Sendable, Hashable {
    case claimed
    /// The journal records the device finished (compliant, verified or skipped), failed (a failure is not
    /// retried by another gateway: `SiteCampaign.settled`) or planned (`plan`).
    case done
    /// Another live gateway's lease holds it.
    case held(by: String)
    case left(to: String, rssi: Int)
    case notHeard
    /// The run has no such device.
    case notInRun
  }

  public func join(run: String) async throws {
    let gateway = gateway
    try await journal.write { s in
      try s.query(
        """
        INSERT INTO bp_gateway (run_id, gateway, joined_at, heartbeat_at) VALUES ($1, $2, now(), now())
          ON CONFLICT (run_id, gateway) DO UPDATE SET heartbeat_at = now()
        """, [run, gateway])
    }
  }

  /// Counts this gateway as gone from `run` (its heartbeat made stale), so the other gateways' surveys and
  /// claims stop waiting on it: a campaign that joined before its survey and then could not start.
  public func leave(run: String) async throws {
    let gateway = gateway
    try await journal.write { s in
      try s.query(
        "UPDATE bp_gateway SET heartbeat_at = to_timestamp(0) WHERE run_id = $1 AND gateway = $2", [run, gateway])
    }
  }

  /// The gateways that joined `run`, by name.
  public func gateways(run: String) async throws -> [String] {
    try await journal.connection.session { s in
      try s.query("SELECT gateway FROM bp_gateway WHERE run_id = $1 ORDER BY gateway", [run]).rows.compactMap { $0[0] }
    }
  }

  /// Renews the heartbeat and every lease this gateway holds in `run`.
  /// A lease that expired but that no other gateway took is renewed too: its generation is unchanged, so
  /// nobody wrote the device meanwhile.
  public func heartbeat(run: String) async throws {
    let (gateway, instance, lease) = (gateway, journal.instance, String(settings.leaseSeconds))
    try await journal.write { s in
      try s.transaction {
        try s.query("UPDATE bp_gateway SET heartbeat_at = now() WHERE run_id = $1 AND gateway = $2", [run, gateway])
        try s.query(
          "UPDATE bp_lease SET expires_at = now() + make_interval(secs => $3::float8) WHERE run_id = $1 AND instance = $2",
          [run, instance, lease])
      }
    }
  }

  /// Stores what this gateway hears now: RSSI by address text.
  public func recordSightings(_ rssi: [String: Int]) async throws {
    let gateway = gateway
    try await journal.write { s in
      try s.transaction {
        for (address, value) in rssi.sorted(by: { $0.key < $1.key }) {
          try s.query(
            """
            INSERT INTO bp_sighting (gateway, address, rssi, seen_at) VALUES ($1, $2, $3::integer, now())
              ON CONFLICT (gateway, address) DO UPDATE SET rssi = EXCLUDED.rssi, seen_at = EXCLUDED.seen_at
            """, [gateway, address, String(value)])
        }
      }
    }
  }

  public func claim(run: String, address: String) async throws -> Claim {
    let (gateway, instance, settings) = (gateway, journal.instance, settings)
    let (claim, generation) = try await journal.connection.session { s -> (Claim, String?) in
      // Sightings within the window, from this gateway and from gateways alive in this run.
      let sightings = try s.query(
        """
        SELECT g.gateway, g.rssi FROM bp_sighting g WHERE g.address = $1
          AND g.seen_at > now() - make_interval(secs => $2::float8)
          AND (g.gateway = $3 OR EXISTS (SELECT 1 FROM bp_gateway w WHERE w.run_id = $4 AND w.gateway = g.gateway
            AND w.heartbeat_at > now() - make_interval(secs => $5::float8)))
        """, [address, String(settings.sightingWindowSeconds), gateway, run, String(settings.leaseSeconds)]
      ).records.compactMap { r in
        r["gateway"].flatMap { g in
          r["rssi"].flatMap(Int.init).map { NearestGatewayRule.Sighting(gateway: g, rssi: $0) }
        }
      }
      let decision = settings.rule.decide(gateway: gateway, sightings: sightings)
      if decision != .take {
        // This process holds no lease on a device it claims, unless this is a retry after a reconnect whose
        // first run took the lease and lost the reply: a lease kept then would be renewed by every heartbeat
        // and hold the device from the gateway it is left to, for good.
        try s.query(
          "DELETE FROM bp_lease WHERE run_id = $1 AND address = $2 AND instance = $3", [run, address, instance])
      }
      switch decision {
      case .notHeard: return (.notHeard, nil)
      case .leave(let other, let rssi): return (.left(to: other, rssi: rssi), nil)
      case .take: break
      }
      let taken = try s.query(
        """
        INSERT INTO bp_lease (run_id, address, gateway, expires_at, instance, generation)
          SELECT $1, $2, $3, now() + make_interval(secs => $4::float8), $5, nextval('bp_lease_generation') FROM bp_device d
          WHERE d.run_id = $1 AND d.address = $2 AND d.state NOT IN ('compliant', 'verified', 'skipped', 'failed', 'planned')
        ON CONFLICT (run_id, address) DO UPDATE SET gateway = EXCLUDED.gateway, expires_at = EXCLUDED.expires_at,
            instance = EXCLUDED.instance, generation = EXCLUDED.generation
          WHERE bp_lease.expires_at <= now() OR bp_lease.instance = EXCLUDED.instance
        RETURNING generation
        """, [run, address, gateway, String(settings.leaseSeconds), instance])
      if taken.affected == 1 { return (.claimed, taken.rows[0][0]) }
      let row = try s.query(
        """
        SELECT d.state, l.gateway FROM bp_device d LEFT JOIN bp_lease l ON l.run_id = d.run_id AND l.address = d.address
          WHERE d.run_id = $1 AND d.address = $2
        """, [run, address]
      ).records.first
      guard let row else { return (.notInRun, nil) }
      if let state = row["state"].flatMap(DeviceState.init(rawValue:)), SiteCampaign.settled(state) {
        return (.done, nil)
      }
      return (.held(by: row["gateway"] ?? "?"), nil)
    }
    if let generation {
      journal.fence(
        run: run, address: address, LeaseFence(generation: generation, writeMargin: settings.leaseSeconds / 3))
    }
    return claim
  }

  /// Gives the device back (its end is journalled); only this process's own lease is removed, and the
  /// device's fence is lifted.
  public func release(run: String, address: String) async throws {
    let instance = journal.instance
    journal.fence(run: run, address: address, nil)
    try await journal.write { s in
      try s.query(
        "DELETE FROM bp_lease WHERE run_id = $1 AND address = $2 AND instance = $3", [run, address, instance])
    }
  }
}
