/// The Secure DFU client as a pure state machine (docs/protocols/nordic-dfu.md §2.5, §2.6): per image, the init packet as
/// a command object, then the firmware as data objects of the target's maximum size, with resume after a
/// drop (Select reports offset + CRC), up to `maximumObjectAttempts` per object on checksum mismatch, PRN
/// receipts, and the SDK 15–17 quirk that re-executing an already-executed object answers 0x08.
/// `start()` gives the first action; every later action comes from `handle(_:)`. No I/O, no clock.
public struct DFUEngine: Sendable {
  enum Phase: Equatable, Sendable {
    case idle, connecting
    case setPRN
    case commandSelect, commandCreate, commandStream, commandReceipt, commandChecksum, commandExecute
    case dataSelect, dataCreate, dataDelay, dataStream, dataReceipt, dataChecksum, dataExecute
    case done, failed
  }

  public let images: [DFUTransferImage]
  public let configuration: DFUEngineConfiguration
  var phase: Phase = .idle
  public internal(set) var imageIndex = 0
  var packetSize = 0

  // the object being transferred
  var objectStart = 0
  var objectEnd = 0
  var offset = 0
  var crc: UInt32 = 0
  var crcAtObjectStart: UInt32 = 0
  var maximumObjectSize = 0
  var packetsSinceReceipt = 0
  var attempts = 0
  var reexecuteTolerated = false
  var pendingWrite = 0

  // link-loss bookkeeping
  var reconnectsWithoutProgress = 0
  var bestReportedOffset = -1
  public internal(set) var reconnects = 0
  /// Images the target refused as already present (not newer) and that were skipped.
  public internal(set) var skippedImages: [Int] = []
  /// Per image, the firmware bytes the target already held when this transfer first selected its data
  /// object: the offset it resumed from (§2.5 step 10), 0 for a fresh image.
  var heldAtStart: [Int: Int] = [:]

  /// The firmware bytes this transfer delivered: every image not skipped, less what the target held when the
  /// transfer reached it. A resume delivers only the rest; an object sent again after a drop or a checksum
  /// mismatch counts once, as the target keeps it once.
  public var firmwareBytesDelivered: Int {
    images.indices.filter { !skippedImages.contains($0) }.reduce(0) {
      $0 + images[$1].firmware.count - (heldAtStart[$1] ?? 0)
    }
  }
  /// The image `progress` speaks of and its bytes the target has confirmed (executed objects): stays on a
  /// finished image (at its full size) until the next image's link is up.
  var progressImage = 0
  var confirmedBytes = 0

  public init(images: [DFUTransferImage], configuration: DFUEngineConfiguration = DFUEngineConfiguration()) {
    self.images = images
    self.configuration = configuration
  }

  var image: DFUTransferImage { images[imageIndex] }
  var inCommandPhase: Bool {
    switch phase {
    case .commandSelect, .commandCreate, .commandStream, .commandReceipt, .commandChecksum, .commandExecute: true
    default: false
    }
  }
  /// The bytes of the object stream currently being sent (init packet or firmware).
  var stream: [UInt8] { inCommandPhase ? image.initPacket : image.firmware }

  /// Bytes of an image's firmware the target has confirmed (executed), and its size. After an image's
  /// final Execute this is that image at 100 % until the next image's link is up, so the last report of
  /// every image — and of the whole transfer — is its full size.
  public var progress: (image: Int, confirmed: Int, total: Int) {
    guard progressImage < images.count else { return (progressImage, 0, 0) }
    return (progressImage, confirmedBytes, images[progressImage].firmware.count)
  }

  public var isFinished: Bool { phase == .done || phase == .failed }

  /// The first action: connect for image 0 (or finish at once for an empty list).
  public mutating func start() -> DFUAction {
    guard !images.isEmpty else { return finish() }
    phase = .connecting
    return .connect(image: 0)
  }

  /// Consumes one event and returns the next action.
  public mutating func handle(_ event: DFUEvent) -> DFUAction {
    switch event {
    case .disconnected: return linkDropped()
    case .connected(let size):
      guard phase == .connecting else { return linkDropped() }
      let usable = size - size % 4
      guard usable >= 4 else { return fail(.invalidPacketSize(size)) }
      packetSize = usable
      if progressImage != imageIndex {
        progressImage = imageIndex
        confirmedBytes = 0
      }
      // The receipt interval is set once per connection, for the command and the data objects alike, as
      // nrfutil 6.1.7 does (`dfu_transport_serial.py`: `open()` calls `__set_prn` once; `__stream_data`
      // awaits receipts while sending the init packet too). The target resets its count on Create (§4).
      packetsSinceReceipt = 0
      phase = .setPRN
      return .send(.setReceiptInterval(configuration.receiptInterval))
    case .packetWritten: return packetWritten()
    case .delayElapsed:
      guard phase == .dataDelay else { return fail(.unexpectedResponse(expected: 0, got: 0)) }
      return startStreaming()
    case .response(let response): return received(response)
    }
  }

  mutating func received(_ response: ControlPointResponse) -> DFUAction {
    guard let expected = expectedOpCode else {
      return fail(.unexpectedResponse(expected: 0, got: response.requestOpCode))
    }
    guard response.requestOpCode == expected else {
      return fail(.unexpectedResponse(expected: expected, got: response.requestOpCode))
    }
    if case .failure(let code, let ext) = response.result {
      if phase == .dataExecute, reexecuteTolerated, code == .operationNotPermitted {
        return objectExecuted()  // §2.5 step 10: SDK 15–17 answer 0x08 for an object executed before the drop
      }
      if phase == .commandExecute, code == .extendedError,
        ext == .firmwareVersionFailure || ext == .firmwareAlreadyPresent,
        imageIndex + 1 < images.count
      {
        // §2.5 "Multi-part packages": a system part the device already has (e.g. applied by an earlier,
        // interrupted run) is skipped and the application follows on the same link, as the Nordic
        // libraries do. Only the "not newer" refusals qualify; every other refusal stops the update.
        skippedImages.append(imageIndex)
        imageIndex += 1
        bestReportedOffset = -1
        progressImage = imageIndex
        confirmedBytes = 0
        phase = .commandSelect  // the receipt interval of this connection still holds
        return .send(.select(.command))
      }
      return fail(.rejected(image: image.name, request: expected, code, ext))
    }
    guard case .success(let payload) = response.result else {
      return fail(.unexpectedResponse(expected: expected, got: 0))
    }
    switch (phase, payload) {
    case (.setPRN, _):
      phase = .commandSelect
      return .send(.select(.command))
    case (.commandSelect, .select(let max, let off, let crc)): return commandSelected(max: max, offset: off, crc: crc)
    case (.commandCreate, _), (.dataCreate, _): return objectCreated()
    case (.commandChecksum, .checksum(let off, let crc)), (.dataChecksum, .checksum(let off, let crc)):
      return checksummed(offset: off, crc: crc)
    case (.dataReceipt, .checksum(let off, let crc)), (.commandReceipt, .checksum(let off, let crc)):
      return receipt(offset: off, crc: crc)
    case (.commandExecute, _):
      phase = .dataSelect
      return .send(.select(.data))
    case (.dataSelect, .select(let max, let off, let crc)): return dataSelected(max: max, offset: off, crc: crc)
    case (.dataExecute, _): return objectExecuted()
    default: return fail(.unexpectedResponse(expected: expected, got: response.requestOpCode))
    }
  }

  /// The op code of the response the current phase waits for.
  var expectedOpCode: UInt8? {
    switch phase {
    case .setPRN: 0x02
    case .commandSelect, .dataSelect: 0x06
    case .commandCreate, .dataCreate: 0x01
    case .commandChecksum, .dataChecksum, .commandReceipt, .dataReceipt: 0x03
    case .commandExecute, .dataExecute: 0x04
    default: nil
    }
  }

  mutating func linkDropped() -> DFUAction {
    guard !isFinished else { return phase == .done ? .finished : .failed(.linkLost(image: "", reconnects: reconnects)) }
    reconnects += 1
    reconnectsWithoutProgress += 1
    guard reconnectsWithoutProgress <= configuration.maximumReconnectsWithoutProgress else {
      return fail(.linkLost(image: image.name, reconnects: reconnectsWithoutProgress))
    }
    phase = .connecting
    return .connect(image: imageIndex)
  }

  mutating func fail(_ failure: DFUFailure) -> DFUAction {
    phase = .failed
    return .failed(failure)
  }

  mutating func finish() -> DFUAction {
    phase = .done
    return .finished
  }
}
