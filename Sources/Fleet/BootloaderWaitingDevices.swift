import Synchronization

/// The devices a resumed firmware campaign's scan heard only as a bootloader of ours — advertising a name this
/// tool gave it (`BootloaderName`), its application silent (`CampaignSelection.waitingInBootloader`) — each
/// taken once. The first visit of such a device that the journal left mid-transfer goes straight to the
/// bootloader: no read of the silent application, no connect to make it jump (each would wait out the link
/// timeout). Every later visit reads the application first, as any visit does: the bootloader may have given up
/// since, and an application that came back is read before it is updated (its filters, its version). Taken by
/// the visit, not counted by attempt, so a retry, a new round of a shared run or a second campaign of the process
/// never goes the short way twice.
public final class BootloaderWaitingDevices: Sendable {
  private let left: Mutex<Set<String>>

  public init(_ addresses: Set<String> = []) { left = Mutex(addresses) }

  /// True the first time for an address of the set, false after and for any other.
  public func take(_ address: String) -> Bool { left.withLock { $0.remove(address) != nil } }
}
