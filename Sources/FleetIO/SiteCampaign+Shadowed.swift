import Fleet

/// Devices a round left pending because a DFU bootloader answered at their address (`Campaign.Options
/// .deferShadowed`, docs/protocols/nordic-dfu.md §2.2): on a shared site that is the device below in its
/// bootloader — a dead gateway's, which this gateway takes over in a later round, or another gateway's at
/// work. They are claimed again in later rounds, not counted as tried, for as long as
/// `FirmwareWork.defaultBootloaderQuarantine` (130 s) from the first time, after which a bootloader would have
/// given up; then they stay pending for `--resume`, the journal saying why.
extension SiteCampaign {
  func shadowedDevices(
    _ claimed: [Target], summary: CampaignSummary, since: inout [String: ContinuousClock.Instant]
  ) async throws -> Set<String> {
    let pending = claimed.map(\.address.description).filter { summary.outcomes[$0] == .pending }
    guard !pending.isEmpty, !summary.interrupted else { return [] }
    let rows = try await coordinator.journal.devices(run: run)
    let now = ContinuousClock.now
    var shadowed: Set<String> = []
    for row in rows where pending.contains(row.address) {
      guard row.state == .pending, row.failureKind == .bootloaderAtAddress else { continue }
      let first = since[row.address] ?? now
      since[row.address] = first
      if now - first < FirmwareWork.defaultBootloaderQuarantine { shadowed.insert(row.address) }
    }
    return shadowed
  }
}
