/// What the fleet's devices are known to be (docs/protocols/nordic-dfu.md §1.4 items 4–6), so a package can be checked
/// before any connection. Every field is optional: a check whose fact is unknown is reported as skipped.
public struct DeviceExpectations: Sendable {
  /// The bootloader's NRF_DFU_HW_VERSION (nRF52 convention: 52).
  public var hardwareVersion: UInt32?
  /// FWID of the SoftDevice on the devices (e.g. 0x0101 for S140 7.x); checked against `sd_req`.
  public var softDeviceID: UInt32?
  /// The running application's version; with downgrade prevention an older app is refused.
  public var applicationVersion: UInt32?
  /// The running bootloader's version; a bootloader image must be strictly newer.
  public var bootloaderVersion: UInt32?
  /// BOOTLOADER_SIZE of the target; a larger bootloader image cannot be written.
  public var maximumBootloaderSize: UInt32?
  /// The bootloader's public key: when set, every image must be signed by it.
  public var publicKey: DFUPublicKey?
  /// Whether unsigned images are refused even without a key to verify against.
  public var requireSignature: Bool

  public init(
    hardwareVersion: UInt32? = nil, softDeviceID: UInt32? = nil, applicationVersion: UInt32? = nil,
    bootloaderVersion: UInt32? = nil, maximumBootloaderSize: UInt32? = nil, publicKey: DFUPublicKey? = nil,
    requireSignature: Bool = false
  ) {
    self.hardwareVersion = hardwareVersion
    self.softDeviceID = softDeviceID
    self.applicationVersion = applicationVersion
    self.bootloaderVersion = bootloaderVersion
    self.maximumBootloaderSize = maximumBootloaderSize
    self.publicKey = publicKey
    self.requireSignature = requireSignature
  }
}

/// The outcome of one check on one image.
public struct PackageCheck: Equatable, Sendable, Codable {
  public enum Outcome: String, Equatable, Sendable, Codable {
    case passed, failed, skipped
  }

  /// Index into `DFUPackage.images`.
  public var image: Int
  /// A short stable name: `op-code`, `type`, `size`, `hash`, `hw-version`, `sd-req`, `fw-version`,
  /// `bl-size`, `signature`.
  public var name: String
  public var outcome: Outcome
  public var detail: String
}

/// A package failed one or more checks; `description` names each failure (one line per failure).
public struct PackageValidationError: Error, Equatable, Sendable, CustomStringConvertible {
  public var failures: [PackageCheck]
  public var description: String {
    failures.map { "image #\($0.image): \($0.name): \($0.detail)" }.joined(separator: "; ")
  }
}
