import BeaconCore

/// The device side of a firmware campaign: who a device is, and the DFU itself (buttonless entry, the
/// bootloader at its own address, transfer, reboot — docs/protocols/nordic-dfu.md §2). The live and simulated paths are
/// the same code behind this; tests of the campaign's bookkeeping may use a stand-in.
public protocol FirmwareUpdater: Sendable {
  func identify(_ target: Target) async throws -> DeviceIdentity
  /// Runs the whole DFU; `progress` gets bytes confirmed so far and the total. Resumes a transfer the
  /// bootloader already holds part of (§2.5). Returns where the bootloader answered, when known.
  func update(_ target: Target, progress: @escaping @Sendable (Int, Int) -> Void) async throws -> FirmwareTransferResult
  /// `update` for a device heard only as its bootloader, advertising a name of this tool's, whose application
  /// was not read: only that bootloader is linked to, never the application (to make it jump) — which, if it
  /// is back, must be read before it is updated. By default, `update`.
  func updateWaitingInBootloader(_ target: Target, progress: @escaping @Sendable (Int, Int) -> Void) async throws
    -> FirmwareTransferResult
}

extension FirmwareUpdater {
  public func updateWaitingInBootloader(_ target: Target, progress: @escaping @Sendable (Int, Int) -> Void)
    async throws -> FirmwareTransferResult
  {
    try await update(target, progress: progress)
  }
}

/// What a completed transfer learnt about the device: where its bootloader answered (docs/protocols/nordic-dfu.md §2.2:
/// the address +1, the same address, or found by name).
public struct FirmwareTransferResult: Sendable, Hashable {
  public var bootloader: BluetoothAddress?
  public var bootloaderType: AddressType?
  /// The name the bootloader was told to advertise and was found by (`BootloaderName`); nil when the
  /// device could not name it (SDK 13: found at address + 1) or was already in its bootloader.
  public var bootloaderName: String?
  /// The firmware bytes this transfer delivered, when the updater counts them: on a resume, only what the
  /// bootloader did not already hold, not the package's size (`DFUEngine.firmwareBytesDelivered`).
  public var bytesDelivered: Int?

  public init(
    bootloader: BluetoothAddress? = nil, bootloaderType: AddressType? = nil, bootloaderName: String? = nil,
    bytesDelivered: Int? = nil
  ) {
    self.bootloader = bootloader
    self.bootloaderType = bootloaderType
    self.bootloaderName = bootloaderName
    self.bytesDelivered = bytesDelivered
  }
}
