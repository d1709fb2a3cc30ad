import Fleet
import Foundation

/// A shared run as `campaign status RUN` shows it: every gateway's progress and every device's
/// state, read from the shared journal in one transaction (one consistent picture). Ages are seconds by the
/// server's clock, so no gateway's clock matters.
public struct SiteStatus: Sendable, Codable, Hashable {
  public var run: String
  public var kind: String
  public var status: String
  public var gateways: [Gateway]
  public var devices: [Device]

  public init(run: String, kind: String, status: String, gateways: [Gateway], devices: [Device]) {
    (self.run, self.kind, self.status, self.gateways, self.devices) = (run, kind, status, gateways, devices)
  }

  public struct Gateway: Sendable, Codable, Hashable {
    public var name: String
    /// Seconds since its last heartbeat.
    public var heartbeatAge: Double
    /// Its heartbeat is younger than a lease: it is working (or has just finished).
    public var alive: Bool
    /// Its devices (`Device.gateway`), by state.
    public var devices: [String: Int]
    /// Devices it holds a live lease on now.
    public var holding: Int
  }

  public struct Device: Sendable, Codable, Hashable {
    public var address: String
    public var state: String
    public var step: String?
    public var attempts: Int
    public var writes: Int
    /// The gateway whose device it is: the one that recorded its row last; for a device still pending, the
    /// gateway holding its lease, else the gateway of the run that hears it best (nil when none does).
    public var gateway: String?
    /// The gateway holding a live lease on it now.
    public var leasedBy: String?
    public var detail: String?

    public init(
      address: String, state: String, step: String?, attempts: Int, writes: Int, gateway: String?, leasedBy: String?,
      detail: String?
    ) {
      (self.address, self.state, self.step, self.attempts, self.writes) = (address, state, step, attempts, writes)
      (self.gateway, self.leasedBy, self.detail) = (gateway, leasedBy, detail)
    }
  }

  /// Devices by state, over the whole site.
  public var totals: [String: Int] { devices.reduce(into: [:]) { $0[$1.state, default: 0] += 1 } }
  /// Every device finished for good (compliant, verified, skipped).
  /// Every device finished: compliant, verified or skipped — or, in a `plan` run, planned (changes found is
  /// where a plan ends).
  public var complete: Bool {
    devices.allSatisfy { device in
      guard let state = DeviceState(rawValue: device.state) else { return false }
      return state.isFinal || (kind == "plan" && state == .planned)
    }
  }
}

extension PostgresJournal {
  /// The run's site-wide status; nil when there is no such run. `leaseSeconds` is how young a heartbeat
  /// must be for its gateway to count as alive.
  ///
  /// A pending device's row names the gateway that created it (the first to hear it) or last tried it, not
  /// the one that will do it, so a pending device is counted under the gateway holding its lease, else under
  /// the gateway of the run that hears it best — alive ones first, then by RSSI, then by name (not under the
  /// gateway that created its row) [I: the best-heard gateway stands for "will take it", as `NearestGatewayRule` leaves a device to
  /// it; one within the margin may take it instead].
  public func status(run: String, leaseSeconds: Double) async throws -> SiteStatus? {
    try await connection.session { s in
      try s.transaction { () throws -> SiteStatus? in
        guard let head = try s.query("SELECT kind, status FROM bp_run WHERE id = $1", [run]).records.first else {
          return nil
        }
        let devices = try s.query(
          """
          SELECT d.address, d.state, d.step, d.attempts, d.writes, d.detail,
            CASE WHEN l.expires_at > now() THEN l.gateway END AS leased_by,
            CASE WHEN d.state <> 'pending' THEN d.gateway WHEN l.expires_at > now() THEN l.gateway ELSE (
              SELECT g.gateway FROM bp_sighting g JOIN bp_gateway w ON w.run_id = d.run_id AND w.gateway = g.gateway
              WHERE g.address = d.address
              ORDER BY w.heartbeat_at > now() - make_interval(secs => $2::float8) DESC, g.rssi DESC, g.gateway LIMIT 1)
            END AS gateway
          FROM bp_device d LEFT JOIN bp_lease l ON l.run_id = d.run_id AND l.address = d.address
          WHERE d.run_id = $1 ORDER BY d.address
          """, [run, String(leaseSeconds)]
        ).records.map { r in
          SiteStatus.Device(
            address: r["address"] ?? "", state: r["state"] ?? "", step: r["step"],
            attempts: Int(r["attempts"] ?? "") ?? 0,
            writes: Int(r["writes"] ?? "") ?? 0, gateway: r["gateway"], leasedBy: r["leased_by"], detail: r["detail"])
        }
        let gateways = try s.query(
          "SELECT gateway, extract(epoch FROM now() - heartbeat_at)::float8 AS age FROM bp_gateway WHERE run_id = $1 ORDER BY gateway",
          [run]
        ).records.map { r -> SiteStatus.Gateway in
          let name = r["gateway"] ?? ""
          let age = Double(r["age"] ?? "") ?? .infinity
          let mine = devices.filter { $0.gateway == name }
          return SiteStatus.Gateway(
            name: name, heartbeatAge: age, alive: age < leaseSeconds,
            devices: mine.reduce(into: [:]) { $0[$1.state, default: 0] += 1 },
            holding: devices.filter { $0.leasedBy == name }.count)
        }
        return SiteStatus(
          run: run, kind: head["kind"] ?? "", status: head["status"] ?? "", gateways: gateways, devices: devices)
      }
    }
  }
}
