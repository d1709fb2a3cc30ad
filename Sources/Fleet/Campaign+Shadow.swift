/// A device that a DFU bootloader shadows (docs/protocols/nordic-dfu.md §2.2): a no-bond bootloader answers at
/// its application's address + 1, which in a batch of consecutive addresses is the next device's. This
/// process never has both neighbours in flight (`AddressNeighbourhood`), but on a site several gateways share,
/// another gateway may be updating the device below while this one visits the device above; and a device
/// left in its bootloader by a stopped run shadows its neighbour until its inactivity timer runs out. Either
/// way the shadow leaves on its own, so the visit waits for it rather than spending its attempts in a row
/// against it (which failed the device "not ready" while the neighbour's transfer was still running).
///
/// [I] The wait looks again every `Options.shadowLook` (2 s) and gives up after `Options.shadowWait` all told
/// (130 s, the bootloader quarantine: the SDK's inactivity timeout and a margin); after that the attempt
/// counts as a failed one, as before. `reconcile`'s ledger then defers the device (`ReconcileLedger`).
/// A round of a shared run does not wait (`Options.deferShadowed`): it ends the device pending, shadowed, and
/// a later round takes it up again (`SiteCampaign`).
extension Campaign {
  /// Waits `Options.shadowLook` (at most what is left of `Options.shadowWait`) after a failed attempt, as a
  /// retry's pause does — announced as a wait (`CampaignEvent.waiting`), the device journalled pending with the
  /// reason, its link permit free for another device meanwhile — and adds it to `waited`. The attempt is not
  /// spent. False when the campaign was stopped or its journal failed meanwhile (the device ends pending).
  func waitOutShadow(_ address: String, reason: String, waited: inout Duration) async -> Bool {
    let look = min(options.shadowLook, options.shadowWait - waited)
    waited += look
    do {
      try await context.journal.record(
        run: context.run, address: address, state: .pending, detail: reason, failureKind: .bootloaderAtAddress)
    } catch {
      if let error = error as? JournalWriteError { journalFailed(error) }
      return false
    }
    continuation.yield(
      .waiting(
        address: address, reason: "a DFU bootloader answers at its address (a neighbour's update); looking again"))
    if stopRequested { return false }
    releasePermit()
    await pause(address, look)
    await takePermit()
    return !stopRequested
  }

  /// `Options.deferShadowed`: the device ends pending now, journalled as shadowed (`FailureKind.bootloaderAtAddress`,
  /// the reason as detail), its attempt not spent.
  func deferShadowed(_ address: String, reason: String) async -> DeviceOutcome {
    deferred.insert(address)
    do {
      try await context.journal.record(
        run: context.run, address: address, state: .pending, detail: reason, failureKind: .bootloaderAtAddress)
    } catch {
      if let error = error as? JournalWriteError { journalFailed(error) }
    }
    continuation.yield(
      .waiting(address: address, reason: "a DFU bootloader answers at its address: left for a later round"))
    continuation.yield(.finished(address: address, .pending))
    return .pending
  }
}
