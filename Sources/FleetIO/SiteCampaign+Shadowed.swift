import Fleet

/// Devices a round left pending because a DFU bootloader answered at their address (`Campaign.Options
/// .deferShadowed`, docs/protocols/nordic-dfu.md §2.2): on a shared site that is the device below in its
/// bootloader — a dead gateway's, which this gateway takes over in a later round, or another gateway's at
/// work. They are claimed again in later rounds rather than counted as tried, after the gateway's other open
/// devices, so that at `--parallel 1` they do not hold those up; the campaign stops leaving a device so 130 s
/// after its first time (`ShadowDeferrals`), after which its attempts are spent and it ends as any other.
extension SiteCampaign {
  /// The claimed devices the round left for a later one (`CampaignSummary.deferred`), in a round no stop cut short.
  static func shadowedDevices(_ claimed: [Target], summary: CampaignSummary) -> Set<String> {
    guard !summary.interrupted else { return [] }
    return summary.deferred.intersection(claimed.map(\.address.description))
  }

  /// `open` with the devices once left for a later round (`shadowed`) after the others, each group in its order.
  static func shadowedLast(_ open: [Target], shadowed: Set<String>) -> [Target] {
    open.filter { !shadowed.contains($0.address.description) }
      + open.filter { shadowed.contains($0.address.description) }
  }
}
