import Fleet
import Foundation

/// One gateway's part of a campaign several gateways share (one campaign across gateways):
/// rounds of claim → run → release until none of the devices this gateway heard is left for it.
///
/// Each round reads the shared journal, claims (`GatewayCoordinator.claim`) up to `batchSize` of its
/// targets that are not finished, runs them through `batch` — an ordinary `Campaign` over the claimed
/// devices, so the per-device work, retries and resume-from-the-journal logic are the single-gateway ones —
/// and releases them once their ends are journalled. A device held by another gateway's lease, or left to a
/// live gateway that hears it clearly better, is waited for (`pollSeconds` between rounds): when that
/// gateway dies its lease expires and its heartbeat goes stale, and this gateway takes the device over,
/// resuming from what the journal says was done. While it runs, a heartbeat renews this gateway's leases
/// and restates the RSSI at which it heard its targets every `CoordinationSettings.renewalSeconds`.
///
/// Gateways started together should first see each other's sightings, or the first to start would claim
/// devices a later one hears better: `settle` makes a gateway wait, before its first claim, until that many
/// gateways have joined the run (each joins after recording its sightings), for at most its seconds
/// [I: default 1 gateway, no wait; `--gateways N --settle S`].
///
/// A device whose lease this gateway finds lost while it works on it (`LeaseLostError`: it was paused past
/// the lease and another gateway took the device, or too little of the lease was left to start a write) is
/// dropped from this round's summary and claimed again in a later round: done or held by the gateway that
/// took it, or this gateway's again with a fresh lease when nobody did.
///
/// A device is visited at most once per gateway per invocation — except one a DFU bootloader shadowed, which a
/// round leaves for a later one (`SiteCampaign+Shadowed`) — and a device some gateway journalled `failed` is not
/// retried by the others [I: as in a single-gateway run, a failure ends the device for the run; `--resume` tries
/// it again].
public struct SiteCampaign: Sendable {
  public let coordinator: GatewayCoordinator
  public let run: String
  public let targets: [Target]
  public let batchSize: Int
  public let pollSeconds: Double
  public let settle: (gateways: Int, seconds: Double)
  let sleep: @Sendable (Duration) async throws -> Void

  public init(
    coordinator: GatewayCoordinator, run: String, targets: [Target], batchSize: Int, pollSeconds: Double = 1,
    settle: (gateways: Int, seconds: Double) = (1, 0),
    sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
  ) {
    (self.coordinator, self.run, self.targets, self.batchSize, self.pollSeconds, self.settle, self.sleep) =
      (coordinator, run, targets, max(1, batchSize), pollSeconds, settle, sleep)
  }

  /// Makes this gateway present in the run: records the RSSI it heard its targets at, joins, keeps both fresh
  /// (the returned task: cancel it when done), and waits for `settle`'s gateways. `start` begins with it; a
  /// catalogue campaign on a named run calls it before its survey too, so gateways started together see each
  /// other there (`GatewayCoordinator.leftToNearer`) [I: a second call only renews what the first made].
  public func announce() async throws -> Task<Void, Never> {
    let (coordinator, run) = (coordinator, run)
    let heard = Dictionary(
      targets.compactMap { t in t.rssi.map { (t.address.description, $0) } }, uniquingKeysWith: max)
    try await coordinator.recordSightings(heard)
    try await coordinator.join(run: run)
    // The heartbeat starts at the join, not after the wait for the others: a gateway that waited longer than
    // the lease for the last one to join would otherwise count as dead when the claims began, and the others
    // would take the devices it hears best.
    let heartbeat = Task { [sleep, renewal = coordinator.settings.renewalSeconds] in
      while !Task.isCancelled {
        try? await sleep(.milliseconds(Int(renewal * 1000)))
        try? await coordinator.heartbeat(run: run)
        try? await coordinator.recordSightings(heard)
      }
    }
    var waited = 0.0
    do {
      while waited < settle.seconds, try await coordinator.gateways(run: run).count < settle.gateways {
        try await sleep(.milliseconds(Int(pollSeconds * 1000)))
        waited += pollSeconds
      }
    } catch {
      heartbeat.cancel()
      throw error
    }
    return heartbeat
  }

  /// A device no gateway takes up again in this run: finished for good, failed, or planned (`plan`).
  static func settled(_ state: DeviceState) -> Bool { state.isFinal || state == .failed || state == .planned }

  /// Runs rounds until nothing is left for this gateway; `batch` runs one round's devices and returns its
  /// summary (interrupted: the site campaign stops too). The summary holds this gateway's devices only.
  public func start(batch: @escaping @Sendable ([Target]) async throws -> CampaignSummary) async throws
    -> CampaignSummary
  {
    let (coordinator, run) = (coordinator, run)
    let heartbeat = try await announce()
    defer { heartbeat.cancel() }
    var outcomes: [String: DeviceOutcome] = [:]
    var tried: Set<String> = []
    var shadowedBefore: Set<String> = []
    var lostAny = false
    while true {
      let rows = Dictionary(
        try await coordinator.journal.devices(run: run).map { ($0.address, $0) }, uniquingKeysWith: { a, _ in a })
      let open = Self.shadowedLast(
        targets.filter { t in
          let address = t.address.description
          guard !tried.contains(address), let row = rows[address] else { return false }
          return !Self.settled(row.state)
        }, shadowed: shadowedBefore)
      if open.isEmpty { break }
      var claimed: [Target] = []
      var waiting = false
      for target in open where claimed.count < batchSize {
        switch try await coordinator.claim(run: run, address: target.address.description) {
        case .claimed: claimed.append(target)
        case .held, .left: waiting = true
        case .done:
          // Finished elsewhere since a round of ours left it for later: its outcome is that gateway's.
          tried.insert(target.address.description)
          if outcomes[target.address.description] == .pending { outcomes[target.address.description] = nil }
        case .notHeard, .notInRun: tried.insert(target.address.description)
        }
      }
      if claimed.isEmpty {
        guard waiting else { break }
        try await sleep(.milliseconds(Int(pollSeconds * 1000)))
        continue
      }
      let summary = try await batch(claimed)
      // A device whose lease was lost (this gateway paused past it; `LeaseFence`) is the other gateway's:
      // not this one's outcome, and not a reason to stop.
      let lost = coordinator.journal.lostLeases()
      lostAny = lostAny || !lost.isEmpty
      outcomes.merge(summary.outcomes.filter { !lost.contains($0.key) }) { _, new in new }
      let shadowed = Self.shadowedDevices(claimed, summary: summary)
      shadowedBefore.formUnion(shadowed)
      for target in claimed {
        let address = target.address.description
        if !lost.contains(address), !shadowed.contains(address) { tried.insert(address) }
        try await coordinator.release(run: run, address: address)
      }
      let stopped =
        summary.journalFailure != nil
        || summary.outcomes.contains { !lost.contains($0.key) && !shadowed.contains($0.key) && $0.value == .pending }
      if !summary.interrupted, !shadowed.isEmpty, shadowed.count == claimed.count {
        try await sleep(.milliseconds(Int(pollSeconds * 1000)))
      }
      if summary.interrupted && stopped {
        return CampaignSummary(run: run, outcomes: outcomes, interrupted: true, journalFailure: summary.journalFailure)
      }
    }
    // The round that lost a lease ended "interrupted" (its device stayed pending for it): say where the
    // run stands now (finished, or running while other gateways work).
    if lostAny { try await coordinator.journal.finish(run: run, status: "finished") }
    // A device of this gateway's left pending (none should be: a shadowed one ends failed past its bound) says
    // the run is not done, as a single gateway's summary would.
    return CampaignSummary(run: run, outcomes: outcomes, interrupted: outcomes.values.contains(.pending))
  }
}
