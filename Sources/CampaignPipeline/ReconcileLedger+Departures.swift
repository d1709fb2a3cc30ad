/// Devices that leave a site (`reconcile --forget-after`): each entry keeps when its device was last heard, and
/// an entry not heard for the given time is dropped. Without it the schedule only grew as devices came and
/// went, and a rollout's population (its converged devices, `ReconcileLoop.rolloutPopulation`) counted every
/// device that ever converged, so a site that replaced its devices sized its stages on more than it has, and a
/// stage could wait for devices long gone. Choices [I]:
/// - a forgotten device that comes back is a new one to the schedule: one connected check, compliant if it is,
///   no write; but a device that refused the password is never forgotten, so it is never tried again with a
///   password known to be wrong (devices may lock out);
/// - time the service was not running does not count as absence (`discountDowntime`);
/// - a rollout of this gateway's schedule drops its forgotten members that have no outcome yet (their stage
///   would wait for them for good) and counts its population afresh from the devices left. A profile that names
///   its devices (`select.addresses`, an inventory) counts them by name, gone or not; a shared journal's rollout
///   is the site's (its stage moves past a device nobody hears with `--resume-rollout`).
extension ReconcileLedger {
  /// How stale `heardAt` may get before a hearing moves it on: a day, or a quarter of `forgetAfter` when that is
  /// shorter, so a device heard all along is never taken for gone. The schedule is written only when it
  /// changes, so a gateway's storage is not rewritten every window.
  public static func heardResolution(forgetAfter: Double) -> Double { min(86400, forgetAfter / 4) }

  /// The devices of `addresses` (one window's) were heard at `now`: the entries of those the schedule knows move
  /// their `heardAt` on when it is `resolution` old or unset. No entry is made for a device it does not know.
  public mutating func heard(_ addresses: some Sequence<String>, now: Double, resolution: Double) {
    for address in addresses {
      guard var entry = devices[address] else { continue }
      if let heardAt = entry.heardAt, now - heardAt < resolution { continue }
      entry.heardAt = now
      devices[address] = entry
    }
  }

  /// At a service's start: the time since the schedule last heard any device, past one `resolution`, was (most
  /// likely) time the service did not run, and is added to every `heardAt`, so a gateway switched off for a
  /// season does not forget every device a first window happens to miss [I: a site where no device at all was
  /// heard for that long while the service ran is discounted the same way].
  public mutating func discountDowntime(now: Double, resolution: Double) {
    guard let last = devices.values.compactMap(\.heardAt).max(), now - last > resolution else { return }
    let gap = now - last - resolution
    for (address, entry) in devices {
      if let heardAt = entry.heardAt { devices[address]?.heardAt = heardAt + gap }
    }
  }

  /// Drops the entries not heard for more than `seconds` before `now`, and returns their addresses, sorted. An
  /// entry with no `heardAt` (kept by a version before it, or made since the last hearing) counts as heard now;
  /// one that refused the password is kept. With `localRollouts` (this gateway's own schedule, no shared
  /// journal) the rollouts drop the forgotten members without an outcome and count their population afresh.
  public mutating func forget(notHeardFor seconds: Double, now: Double, localRollouts: Bool = true) -> [String] {
    var forgotten: [String] = []
    for (address, entry) in devices where entry.refusedUnder == nil {
      guard let heardAt = entry.heardAt else {
        devices[address]?.heardAt = now
        continue
      }
      if now - heardAt > seconds { forgotten.append(address) }
    }
    guard !forgotten.isEmpty else { return [] }
    for address in forgotten { devices[address] = nil }
    guard localRollouts else { return forgotten.sorted() }
    rollouts = rollouts?.mapValues { rollout in
      var rollout = rollout
      rollout.members = rollout.members.filter { !forgotten.contains($0.key) || $0.value.failed != nil }
      rollout.population = nil
      return rollout
    }
    return forgotten.sorted()
  }
}
