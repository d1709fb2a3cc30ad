import Fleet
import Foundation
import Synchronization

/// The fencing token of a device this gateway process claimed, so a gateway resumed after a pause longer than its lease cannot write a device another now holds:
/// the lease's `generation`, drawn anew each time any gateway takes the lease (`GatewayCoordinator.claim`).
/// While a fence is set, every journal write for the device (`PostgresJournal.record`) is one statement
/// that changes the row only if this instance still holds that very lease, unexpired — so the proof and the
/// record are one transaction. A gateway paused (SIGSTOP, a stalled VM) past its lease, whose device
/// another gateway then took, finds its next write refused (`LeaseLostError`) and leaves the device alone.
///
/// The writes to the device itself are fenced through the journal: `apply` records `writing` (and `dfu
/// update` `transferring`) just before it sends the `cfg` message, each text command's set or the image, after reading the device
/// in the same visit, so a read made before a pause is never written from — the write is refused, or the
/// lease was never lost and nobody else touched the device. That pre-write record also demands that the
/// lease has `writeMargin` seconds left (a third of the lease: renewals come every third, so a healthy
/// gateway always has it), so the write that follows lands while the lease still holds [I: what remains is
/// a pause of more than `writeMargin` between that record and the radio write, microseconds apart; a
/// KBeacon cannot check a token itself].
public struct LeaseFence: Sendable, Hashable {
  /// The lease's generation (text of a bigint), as the claim returned it.
  public var generation: String
  /// Seconds the lease must still have for a write to the device to start.
  public var writeMargin: Double

  /// The steps recorded just before something is sent to the device (`VisitStep`).
  static let deviceWriteSteps: Set<String> = [VisitStep.writing.rawValue, VisitStep.transferring.rawValue]
}

/// The fences of one journal's claimed devices, by run and address, and the devices whose lease was found
/// lost since the caller last asked (`SiteCampaign` leaves those to the gateway that took them).
final class LeaseFences: Sendable {
  private struct Key: Hashable { var run: String, address: String }
  private let fences = Mutex<[Key: LeaseFence]>([:])
  private let lost = Mutex<Set<String>>([])

  func set(run: String, address: String, _ fence: LeaseFence?) {
    fences.withLock { $0[Key(run: run, address: address)] = fence }
  }

  func fence(run: String, address: String) -> LeaseFence? { fences.withLock { $0[Key(run: run, address: address)] } }

  /// The fence stays until the device is released: every later record of the visit (its failure, its
  /// end) must be refused too, or it would overwrite the row of the gateway that took the device.
  func lose(run: String, address: String) {
    _ = lost.withLock { $0.insert(address) }
  }

  func takeLost() -> Set<String> {
    lost.withLock { l in
      defer { l = [] }
      return l
    }
  }
}

/// This gateway no longer holds the lease it claimed the device with: another gateway took it (this one was
/// paused or cut off past the lease), or it is about to expire before a write could start. Nothing was
/// recorded; the device is the other gateway's now. Permanent for this visit [I: the campaign ends the
/// device's visit here; its end cannot be journalled either, so it shows as pending for this gateway].
public struct LeaseLostError: Error, ClassifiedFailure, Sendable, Hashable, CustomStringConvertible {
  public var address: String
  public var run: String
  public var failureKind: FailureKind { .permanent }
  public var description: String {
    "\(address): this gateway's lease on it in run \(run) is lost (another gateway took it over, or it expires before "
      + "a write could finish); left to the gateway holding it"
  }
}
