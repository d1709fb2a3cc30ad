/// Runs a `DFUEngine` over links from a `DFULinkFactory`: performs each action and feeds back the event.
/// Any link error becomes `.disconnected`, so the engine's resume logic (docs/protocols/nordic-dfu.md §2.5 step 10) handles drops and
/// timeouts alike. `pause` implements `.delay` and the pause between images (injected for tests).
public struct DFUTransfer: Sendable {
  public var factory: any DFULinkFactory
  public var configuration: DFUEngineConfiguration
  /// Wait before reopening the link for the next image or after a drop (nrfutil `--connect-delay`).
  public var reconnectDelay: Duration
  public var pause: @Sendable (Duration) async throws -> Void

  public init(
    factory: any DFULinkFactory, configuration: DFUEngineConfiguration = DFUEngineConfiguration(),
    reconnectDelay: Duration = .zero,
    pause: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
  ) {
    self.factory = factory
    self.configuration = configuration
    self.reconnectDelay = reconnectDelay
    self.pause = pause
  }

  /// Progress callback: image index, confirmed bytes, total bytes.
  public typealias Progress = @Sendable (_ image: Int, _ confirmed: Int, _ total: Int) -> Void

  /// Sends every image; returns what was sent and skipped, throws `DFUFailure` on failure (including
  /// `.linkUnavailable` when the factory says the link cannot be opened at all).
  @discardableResult
  public func run(_ images: [DFUTransferImage], progress: Progress? = nil) async throws -> DFUTransferSummary {
    var engine = DFUEngine(images: images, configuration: configuration)
    var action = engine.start()
    var link: (any DFULink)?
    var firstConnect = true
    do {
      return try await drive(&engine, &action, &link, &firstConnect, progress: progress)
    } catch {
      // Close before rethrowing so the link's controller slot is free when the caller moves on.
      if let open = link { await open.close() }
      throw error
    }
  }

  private func drive(
    _ engine: inout DFUEngine, _ action: inout DFUAction, _ link: inout (any DFULink)?, _ firstConnect: inout Bool,
    progress: Progress?
  ) async throws -> DFUTransferSummary {
    while true {
      switch action {
      case .finished:
        if let open = link {
          await open.close()
          link = nil
        }
        return DFUTransferSummary(
          imageCount: engine.images.count, skippedImages: engine.skippedImages, reconnects: engine.reconnects,
          firmwareBytesDelivered: engine.firmwareBytesDelivered)
      case .failed(let failure):
        if let open = link {
          await open.close()
          link = nil
        }
        throw failure
      case .connect(let image):
        if let open = link {
          await open.close()
          link = nil
        }
        if !firstConnect, reconnectDelay > .zero { try await pause(reconnectDelay) }
        firstConnect = false
        do {
          let opened = try await factory.open(image: image)
          link = opened
          action = engine.handle(.connected(packetSize: opened.packetSize))
        } catch is CancellationError {
          throw CancellationError()
        } catch let unavailable as DFULinkUnavailable {
          throw DFUFailure.linkUnavailable(unavailable.message)
        } catch {
          action = engine.handle(.disconnected)
        }
      case .delay(let duration):
        try await pause(duration)
        action = engine.handle(.delayElapsed)
      case .send(let request):
        action = await step(&engine, link) { try await $0.request(request) }
      case .awaitReceipt:
        action = await step(&engine, link) { try await $0.receipt() }
      case .writePacket(let bytes):
        guard let open = link else {
          action = engine.handle(.disconnected)
          continue
        }
        do {
          try await open.writePacket(bytes)
          action = engine.handle(.packetWritten)
        } catch {
          action = engine.handle(.disconnected)
        }
      }
      if let progress {
        let p = engine.progress
        progress(p.image, p.confirmed, p.total)
      }
    }
  }

  private func step(
    _ engine: inout DFUEngine, _ link: (any DFULink)?,
    _ body: (any DFULink) async throws -> ControlPointResponse
  ) async -> DFUAction {
    guard let link else { return engine.handle(.disconnected) }
    do {
      return engine.handle(.response(try await body(link)))
    } catch {
      return engine.handle(.disconnected)
    }
  }
}

/// What a finished transfer did: which images went over the link and which the target already had.
public struct DFUTransferSummary: Equatable, Sendable {
  /// Indexes of the images sent, in order.
  public var sentImages: [Int]
  /// Indexes of the images the target refused as already present (§2.5 "Multi-part packages").
  public var skippedImages: [Int]
  /// Reconnects the transfer needed.
  public var reconnects: Int
  /// Firmware bytes the target got from this transfer (`DFUEngine.firmwareBytesDelivered`): on a resume, only
  /// the part it lacked.
  public var firmwareBytesDelivered: Int

  public init(imageCount: Int, skippedImages: [Int], reconnects: Int, firmwareBytesDelivered: Int = 0) {
    self.sentImages = (0..<imageCount).filter { !skippedImages.contains($0) }
    self.skippedImages = skippedImages
    self.reconnects = reconnects
    self.firmwareBytesDelivered = firmwareBytesDelivered
  }
}
