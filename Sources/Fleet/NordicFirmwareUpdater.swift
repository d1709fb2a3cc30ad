import BeaconCore
import KBeacon
import NordicDFU
import Profiles
import Synchronization

/// The `FirmwareUpdater` of real devices and the simulated fleet alike (the same code, any `Central`):
/// `identify` reads `model`, `hver` and `ver` (docs/protocols/kbeacon.md §6.3, common section only) over an
/// authenticated KBeacon session and closes it; `update` runs the package's images through `DFUTransfer`
/// over a `BLEDFULinkFactory` (buttonless entry naming the bootloader `BootloaderName` for this device and
/// attempt, then only that bootloader; address +1 for a device that cannot name it; resume after drops —
/// docs/protocols/nordic-dfu.md §2.2–2.5), reporting bytes confirmed over all images.
public struct NordicFirmwareUpdater: FirmwareUpdater {
  public var opener: KBeaconOpener
  public var password: Secret
  public var images: [DFUTransferImage]
  public var engine: DFUEngineConfiguration
  /// Pause before reopening a dropped link (nrfutil `--connect-delay`).
  public var reconnectDelay: Duration
  /// Connect, scan-for-bootloader and response timeouts of the DFU link.
  public var linkTimeout: Duration
  public var scanTimeout: Duration
  /// Counts each device's update calls: the attempt number in its bootloader's name.
  public var attempts = UpdateAttempts()

  public init(
    opener: KBeaconOpener, password: Secret, images: [DFUTransferImage],
    engine: DFUEngineConfiguration = DFUEngineConfiguration(), reconnectDelay: Duration = .milliseconds(500),
    linkTimeout: Duration = .seconds(10), scanTimeout: Duration = .seconds(5)
  ) {
    self.opener = opener
    self.password = password
    self.images = images
    self.engine = engine
    self.reconnectDelay = reconnectDelay
    self.linkTimeout = linkTimeout
    self.scanTimeout = scanTimeout
  }

  public func identify(_ target: Target) async throws -> DeviceIdentity {
    let session = try await opener.openSession(target, password: password)
    let configuration: KBeaconConfiguration
    do {
      configuration = try await session.readConfiguration(sections: [.common])
    } catch {
      await session.close()
      throw error
    }
    await session.close()
    let common = configuration.common.fields
    // v1 firmware spells the model key "modle" (§7).
    return DeviceIdentity(
      model: common["model"]?.stringValue ?? common["modle"]?.stringValue, hardware: common["hver"]?.stringValue,
      firmware: common["ver"]?.stringValue.flatMap(FirmwareVersion.init))
  }

  public func update(_ target: Target, progress: @escaping @Sendable (Int, Int) -> Void) async throws
    -> FirmwareTransferResult
  {
    try await transfer(target, bootloaderWaiting: false, progress: progress)
  }

  /// `update` for a device heard only as a bootloader of ours: its links go to that bootloader alone
  /// (`BLEDFULinkFactory.bootloaderWaiting`), never to the application to make it jump.
  public func updateWaitingInBootloader(_ target: Target, progress: @escaping @Sendable (Int, Int) -> Void)
    async throws -> FirmwareTransferResult
  {
    try await transfer(target, bootloaderWaiting: true, progress: progress)
  }

  private func transfer(
    _ target: Target, bootloaderWaiting: Bool, progress: @escaping @Sendable (Int, Int) -> Void
  ) async throws -> FirmwareTransferResult {
    let name = BootloaderName.make(for: target.address, attempt: attempts.next(target.address))
    let factory = BLEDFULinkFactory(
      central: opener.central, device: target.address, addressType: target.addressType, bootloaderName: name,
      bootloaderWaiting: bootloaderWaiting, connectTimeout: linkTimeout, scanTimeout: scanTimeout,
      responseTimeout: linkTimeout)
    let sizes = images.map(\.firmware.count)
    let total = sizes.reduce(0, +)
    let transfer = DFUTransfer(factory: factory, configuration: engine, reconnectDelay: reconnectDelay)
    let summary: DFUTransferSummary
    do {
      summary = try await transfer.run(images) { image, confirmed, _ in
        progress(sizes.prefix(image).reduce(0, +) + confirmed, total)
      }
    } catch let failure as DFUFailure {
      throw FirmwareTransferFailure(failure: failure)
    }
    let bootloader = await factory.bootloader
    var named: String? = nil
    if case .named(let name) = await factory.entry { named = name }
    return FirmwareTransferResult(
      bootloader: bootloader?.address, bootloaderType: bootloader?.type, bootloaderName: named,
      bytesDelivered: summary.firmwareBytesDelivered)
  }
}

/// How many times each device's update was started (in this process), shared by copies of the updater.
public final class UpdateAttempts: Sendable {
  private let counts = Mutex<[BluetoothAddress: Int]>([:])
  public init() {}
  /// The number of this attempt for `address`: 1 for its first.
  public func next(_ address: BluetoothAddress) -> Int {
    counts.withLock {
      $0[address, default: 0] += 1
      return $0[address]!
    }
  }
}

/// A DFU that did not complete. Retrying is worth it: the bootloader keeps what it confirmed (§2.5) or,
/// after its inactivity timeout, the old application runs again.
public struct FirmwareTransferFailure: Error, ClassifiedFailure, CustomStringConvertible {
  public var failure: DFUFailure
  public var failureKind: FailureKind { .transient }
  public var description: String { "DFU failed: \(failure.description)" }
}
