import NordicDFU

/// What the simulated bootloader is and has (docs/protocols/nordic-dfu.md §1.4, §2.5 target rules; SDK 15.3 defaults).
public struct DFUTargetConfiguration: Sendable {
  /// NRF_DFU_HW_VERSION (nRF52 convention 52).
  public var hardwareVersion: UInt32 = 52
  /// FWID of the installed SoftDevice (0x0101 = S140 7.0.1 on nRF52840), as read from the SD info struct.
  public var softDeviceID: UInt32 = 0x0101
  /// Version of the installed application; nil when no valid application is present.
  public var applicationVersion: UInt32? = 1
  public var bootloaderVersion: UInt32 = 1
  /// The bootloader's public key. [I] When set, unsigned init packets are refused (signature missing);
  /// when nil the target accepts unsigned packets and ignores signatures, like a bootloader built with
  /// NRF_DFU_REQUIRE_SIGNED_APP_UPDATE = 0 (makes the unsigned nrfutil fixture usable).
  public var publicKey: DFUPublicKey?
  /// INIT_COMMAND_MAX_SIZE (512 on SDK 15.3) and DATA_OBJECT_MAX_SIZE (one nRF52 page).
  public var maximumCommandSize: UInt32 = 512
  public var maximumDataObjectSize: UInt32 = 4096
  /// Room for a new image (bank 1 of a dual-bank layout) and BOOTLOADER_SIZE.
  public var availableSpace: UInt32 = 0x6_0000
  public var maximumBootloaderSize: UInt32 = 0x6000
  /// UART MTU the target reports (§4: 131 on SDK 15.3).
  public var serialMTU: UInt16 = SerialDFUFraming.sdkMTU
  /// Bootloader inactivity timeout (NRF_BL_DFU_INACTIVITY_TIMEOUT_MS, 120 s by default).
  public var inactivityTimeout: Duration = .seconds(120)

  public init() {}
}

/// Faults the simulated target injects (design map: "drops links at a chosen byte, corrupts a packet").
/// Each fires once.
public struct DFUTargetFaults: Sendable, Equatable {
  /// Drop the link once this many firmware bytes (counted across the whole session) have been received;
  /// bytes beyond it in the same write are lost.
  public var dropLinkAtByte: Int?
  /// Flip one bit of the data write that contains this firmware byte offset.
  public var corruptByteAt: Int?
  /// Drop the link once this many bytes of the init packet (the command object) have been received;
  /// bytes beyond it in the same write are lost.
  public var dropLinkAtInitByte: Int?
  /// The final Execute activates the image, but the link drops before its answer goes out (the client
  /// never hears the success and must find the new version some other way).
  public var dropLinkAtExecute: Bool

  public init(
    dropLinkAtByte: Int? = nil, corruptByteAt: Int? = nil, dropLinkAtInitByte: Int? = nil,
    dropLinkAtExecute: Bool = false
  ) {
    self.dropLinkAtByte = dropLinkAtByte
    self.corruptByteAt = corruptByteAt
    self.dropLinkAtInitByte = dropLinkAtInitByte
    self.dropLinkAtExecute = dropLinkAtExecute
  }
}

/// What the target does in answer to one message.
public enum DFUTargetOutput: Equatable, Sendable {
  /// A response or PRN receipt (`60 …`) to notify / send as a frame.
  case respond([UInt8])
  /// The radio link (or UART session) is gone: ignore everything until the client reconnects.
  case dropLink
  /// The target resets after a successful final Execute and runs the new firmware (or stays in the
  /// bootloader for a SoftDevice/bootloader image, waiting for the application part).
  case reset(runningApplication: Bool)
}
