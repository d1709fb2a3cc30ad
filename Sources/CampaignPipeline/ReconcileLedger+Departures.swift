/// Devices that leave a site (`reconcile --forget-after`): each entry keeps when its device was last heard, and
/// an entry not heard for the given time is dropped. Without it the schedule only grew as devices came and
/// went, and a rollout's population (its converged devices, `ReconcileLoop.rolloutPopulation`) counted every
/// device that ever converged, so a site that replaced its devices sized its stages on more than it has, and a
/// stage could wait for devices long gone [I: a forgotten device that comes back is a new one to the schedule:
/// one connected check, compliant if it is, no write].
extension ReconcileLedger {
  /// How stale `heardAt` may get before a hearing moves it on: an hour [I], or a quarter of `forgetAfter` when
  /// that is shorter, so a device heard all along is never taken for gone. The schedule is written only when it
  /// changes, so a gateway's storage is not rewritten every window.
  public static func heardResolution(forgetAfter: Double?) -> Double { min(3600, (forgetAfter ?? .infinity) / 4) }

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

  /// Drops the entries not heard for more than `seconds` before `now`, and returns their addresses, sorted. An
  /// entry with no `heardAt` (kept by a version before it, or made since the last hearing) counts as heard now.
  public mutating func forget(notHeardFor seconds: Double, now: Double) -> [String] {
    var forgotten: [String] = []
    for (address, entry) in devices {
      guard let heardAt = entry.heardAt else {
        devices[address]?.heardAt = now
        continue
      }
      if now - heardAt > seconds { forgotten.append(address) }
    }
    for address in forgotten { devices[address] = nil }
    return forgotten.sorted()
  }
}
