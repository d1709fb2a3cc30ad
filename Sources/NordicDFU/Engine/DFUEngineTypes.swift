/// What the DFU engine asks its driver to do next (docs/protocols/nordic-dfu.md §2.5). The engine is pure; the driver
/// (serial, BLE, or a test harness) performs each action and answers with the matching `DFUEvent`.
public enum DFUAction: Equatable, Sendable {
  /// Open a link to the bootloader for image `image` (the first, or again after a drop or between images
  /// — §2.5 "Multi-part packages"). Answer `.connected(packetSize:)` or `.disconnected`.
  case connect(image: Int)
  /// Send a control-point request; answer `.response`.
  case send(ControlPointRequest)
  /// Write object bytes (Packet characteristic on BLE, op 0x08 on serial); answer `.packetWritten`.
  case writePacket([UInt8])
  /// A PRN receipt is due; answer `.response` with it.
  case awaitReceipt
  /// Wait (the object-preparation delay of §2.5 step 12); answer `.delayElapsed`.
  case delay(Duration)
  /// Every image is in; the target resets by itself (§2.5 step 16).
  case finished
  case failed(DFUFailure)
}

/// What happened, fed back to the engine.
public enum DFUEvent: Equatable, Sendable {
  /// The link is up; `packetSize` is the largest write payload it takes (BLE: ATT MTU − 3; serial:
  /// (MTU − 1) / 2 − 1, §4).
  case connected(packetSize: Int)
  case response(ControlPointResponse)
  case packetWritten
  case delayElapsed
  /// The link dropped or a response timed out.
  case disconnected
}

/// Engine settings (§2.6 fleet defaults).
public struct DFUEngineConfiguration: Equatable, Sendable {
  /// Packet Receipt Notification interval for data objects; 0 = off.
  public var receiptInterval: UInt16
  /// Attempts per object when its checksum mismatches (§2.5 step 6/14: 3).
  public var maximumObjectAttempts: Int
  /// Reconnects allowed in a row without the target reporting more bytes than before.
  public var maximumReconnectsWithoutProgress: Int
  /// Pause after creating a data object (§2.5 step 12; KKM uses 300 ms, iOS 400 ms on the first).
  public var dataObjectDelay: Duration

  public init(
    receiptInterval: UInt16 = 12, maximumObjectAttempts: Int = 3, maximumReconnectsWithoutProgress: Int = 3,
    dataObjectDelay: Duration = .zero
  ) {
    self.receiptInterval = receiptInterval
    self.maximumObjectAttempts = maximumObjectAttempts
    self.maximumReconnectsWithoutProgress = maximumReconnectsWithoutProgress
    self.dataObjectDelay = dataObjectDelay
  }
}

/// One image to transfer: its init packet and firmware (a `DFUPackage.Image` reduced to bytes).
public struct DFUTransferImage: Equatable, Sendable {
  public var name: String
  public var initPacket: [UInt8]
  public var firmware: [UInt8]

  public init(name: String, initPacket: [UInt8], firmware: [UInt8]) {
    self.name = name
    self.initPacket = initPacket
    self.firmware = firmware
  }
}

extension DFUPackage {
  /// The images as the engine sends them, in transfer order.
  public var transferImages: [DFUTransferImage] {
    images.map { DFUTransferImage(name: $0.kind.rawValue, initPacket: $0.initPacketBytes, firmware: $0.firmware) }
  }
}

/// Why a transfer stopped.
public enum DFUFailure: Error, Equatable, Sendable, CustomStringConvertible {
  case rejected(image: String, request: UInt8, DFUResultCode, DFUExtendedError?)
  case initPacketTooLarge(image: String, size: Int, maximum: UInt32)
  case checksumMismatch(image: String, offset: UInt32)
  case unexpectedResponse(expected: UInt8, got: UInt8)
  case badSelectResponse(image: String)
  case linkLost(image: String, reconnects: Int)
  case invalidPacketSize(Int)
  /// The link cannot be opened (e.g. no such serial port); see `DFULinkUnavailable`.
  case linkUnavailable(String)

  public var description: String {
    switch self {
    case .rejected(let image, let op, let code, let ext):
      "\(image): the bootloader refused request 0x\(String(op, radix: 16)): \(code.text)\(ext.map { " — \($0.text)" } ?? "")"
    case .initPacketTooLarge(let image, let size, let max):
      "\(image): init packet is \(size) bytes, the bootloader takes \(max)"
    case .checksumMismatch(let image, let offset):
      "\(image): checksum still wrong at offset \(offset) after every retry"
    case .unexpectedResponse(let expected, let got):
      "expected a response to 0x\(String(expected, radix: 16)), got one to 0x\(String(got, radix: 16))"
    case .badSelectResponse(let image): "\(image): the bootloader reported an impossible object size or offset"
    case .linkLost(let image, let n): "\(image): link lost \(n) times in a row without progress; run again to resume"
    case .invalidPacketSize(let n): "the link's packet size \(n) is too small (need at least 4 bytes)"
    case .linkUnavailable(let why): why
    }
  }
}
