import NordicDFU

/// A simulated bootloader reachable in memory: the `DFULink`s it hands out call straight into the target
/// state machine, so engine + target run together in tests and the benchmark with no transport. Link
/// drops (`.dropLink` fault) kill the current link; the next `open` is a reconnect to the same target.
public actor DFUTargetHost {
  public private(set) var target: SimulatedDFUTarget
  private var generation = 0
  /// Largest write payload the simulated links take (BLE: ATT MTU − 3).
  public let packetSize: Int
  public private(set) var linkDrops = 0
  public private(set) var connections = 0

  public init(target: SimulatedDFUTarget, packetSize: Int = 244) {
    self.target = target
    self.packetSize = packetSize
  }

  public func setFaults(_ faults: DFUTargetFaults) { target.faults = faults }

  func connect() throws -> Int {
    guard target.inBootloader else { throw DFUTransportError("no bootloader: the device runs its application") }
    generation += 1
    connections += 1
    return generation
  }

  /// Runs one message through the target; returns PRN receipts/responses, throws if the link is gone.
  func exchange(_ link: Int, request: [UInt8]?, write: [UInt8]?) throws -> [[UInt8]] {
    guard link == generation else { throw DFUTransportError("link dropped") }
    let outputs = request.map { target.handle(request: $0) } ?? target.write(write ?? [])
    var responses: [[UInt8]] = []
    for output in outputs {
      switch output {
      case .respond(let bytes): responses.append(bytes)
      case .dropLink:
        generation += 1
        linkDrops += 1
        throw DFUTransportError("link dropped")
      case .reset: generation += 1  // the target resets: this link ends after the response
      }
    }
    return responses
  }
}

/// The link side of `DFUTargetHost`: requests get their response at once; receipts queue until read.
public actor InMemoryDFULink: DFULink {
  private let host: DFUTargetHost
  private let id: Int
  private var pending: [[UInt8]] = []
  public nonisolated let packetSize: Int

  init(host: DFUTargetHost, id: Int, packetSize: Int) {
    self.host = host
    self.id = id
    self.packetSize = packetSize
  }

  public func request(_ request: ControlPointRequest) async throws -> ControlPointResponse {
    pending += try await host.exchange(id, request: request.bytes, write: nil)
    return try nextResponse()
  }

  public func writePacket(_ bytes: [UInt8]) async throws {
    pending += try await host.exchange(id, request: nil, write: bytes)
  }

  public func receipt() async throws -> ControlPointResponse { try nextResponse() }

  private func nextResponse() throws -> ControlPointResponse {
    guard !pending.isEmpty else { throw DFUTransportError("no response from the bootloader") }
    return try ControlPointResponse(bytes: pending.removeFirst())
  }

  public func close() async {}
}

extension DFUTargetHost: DFULinkFactory {
  public nonisolated func open(image: Int) async throws -> any DFULink {
    let id = try await connect()
    return InMemoryDFULink(host: self, id: id, packetSize: packetSize)
  }
}
