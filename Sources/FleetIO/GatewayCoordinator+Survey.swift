import Fleet

/// A catalogue campaign's survey on a shared run (`dfu update --firmware … --journal`, `reconcile --firmware`
/// with a PostgreSQL journal): before any device enters its bootloader the campaign reads every target's model,
/// hardware and firmware to fetch and verify its packages (`CatalogueCampaignPlanner`). On a shared run that
/// read is left out for the devices another gateway heard clearly better lately — the devices the
/// nearest-gateway rule will give that gateway — so a gateway does not link to a device another gateway is
/// about to configure or update (a KBeacon takes one link at a time; the VM tier's two gateways each linked
/// to the other's device for its survey).
///
/// [I] As the claim does, the survey weighs only gateways alive in the run (a heartbeat within `leaseSeconds`)
/// with a sighting within `sightingWindowSeconds`: a gateway stopped, dead, or not in this run (busy with its
/// configuration, or without `--firmware`) is left nothing, so the devices the claim will let this gateway
/// take are surveyed. A campaign whose run is not named before it starts (a new `dfu update --journal` run)
/// surveys every target. A gateway that dies after the survey left it a device: the device is claimed here
/// once its lease allows, read at its visit, and updated; a pair no surveyed device shared gets its package
/// then (`CatalogueTakeoverRoute`, CampaignPipeline).
extension GatewayCoordinator {
  /// The targets another gateway alive in `run` heard clearly better within the sighting window: address →
  /// that gateway.
  public func leftToNearer(_ targets: [Target], run: String) async throws -> [String: String] {
    let mine = Dictionary(
      targets.compactMap { t in t.rssi.map { (t.address.description, $0) } }, uniquingKeysWith: max)
    guard !mine.isEmpty else { return [:] }
    let (gateway, window, lease) = (gateway, String(settings.sightingWindowSeconds), String(settings.leaseSeconds))
    let others = try await journal.connection.session { s in
      try s.query(
        """
        SELECT g.address, g.gateway, g.rssi FROM bp_sighting g
          WHERE g.gateway <> $1 AND g.seen_at > now() - make_interval(secs => $2::float8)
            AND EXISTS (SELECT 1 FROM bp_gateway w WHERE w.run_id = $4 AND w.gateway = g.gateway
              AND w.heartbeat_at > now() - make_interval(secs => $3::float8))
        """, [gateway, window, lease, run]
      ).records.compactMap { r -> (String, NearestGatewayRule.Sighting)? in
        guard let address = r["address"] ?? nil, let other = r["gateway"] ?? nil,
          let rssi = (r["rssi"] ?? nil).flatMap(Int.init)
        else { return nil }
        return (address, NearestGatewayRule.Sighting(gateway: other, rssi: rssi))
      }
    }
    return Self.leftToNearer(
      gateway: gateway, mine: mine, others: Dictionary(grouping: others, by: \.0).mapValues { $0.map(\.1) },
      rule: settings.rule)
  }

  /// The pure part: each of `mine` (address → this gateway's RSSI) that `rule` leaves to another gateway.
  public static func leftToNearer(
    gateway: String, mine: [String: Int], others: [String: [NearestGatewayRule.Sighting]], rule: NearestGatewayRule
  ) -> [String: String] {
    var left: [String: String] = [:]
    for (address, rssi) in mine {
      let sightings = [NearestGatewayRule.Sighting(gateway: gateway, rssi: rssi)] + (others[address] ?? [])
      if case .leave(let other, _) = rule.decide(gateway: gateway, sightings: sightings) { left[address] = other }
    }
    return left
  }
}
