/// Device-side pieces of the framing layer (docs/protocols/kbeacon.md §4), used by the simulated KBeacon. The
/// device reassembles request fragments, asking for each next one with an ack of cause 4, and sends long
/// responses as report fragments, one per app report ack.
public struct RequestAssembler: Sendable {
  public enum Step: Equatable, Sendable {
    /// Answer with this ack (cause 4, seq = next offset) and wait for the next fragment.
    case askForNext(DeviceAck)
    /// The request is whole.
    case complete(dataType: FrameHeader.DataType, message: [UInt8])
    /// The fragment broke the sequence; answer with this ack and drop the partial request.
    case reject(DeviceAck)
  }

  /// The cause a device answers for an out-of-sequence or oversized request fragment. The spec names no
  /// cause for this; we choose 0x107 "command execution failed" [I].
  public static let sequenceErrorCause = DeviceCause.executionFailed

  public let capacity: Int
  private var buffer: [UInt8] = []
  private var dataType: FrameHeader.DataType?

  public init(capacity: Int = ReportAssembler.defaultCapacity) { self.capacity = capacity }

  /// True while a multi-frame request is half received.
  public var isCollecting: Bool { dataType != nil }

  public mutating func take(_ frame: RequestFrame) -> Step {
    func reject() -> Step {
      buffer = []
      dataType = nil
      return .reject(DeviceAck(dataType: frame.dataType, seq: frame.offset, cause: Self.sequenceErrorCause))
    }
    switch frame.position {
    case .single:
      guard frame.offset == 0 else { return reject() }
      buffer = []
      dataType = nil
      return .complete(dataType: frame.dataType, message: frame.payload)
    case .start:
      guard frame.offset == 0, frame.payload.count <= capacity else { return reject() }
      buffer = frame.payload
      dataType = frame.dataType
    case .middle, .end:
      guard dataType == frame.dataType, Int(frame.offset) == buffer.count,
        buffer.count + frame.payload.count <= capacity
      else { return reject() }
      buffer += frame.payload
    }
    if frame.position == .end {
      defer {
        buffer = []
        dataType = nil
      }
      return .complete(dataType: frame.dataType, message: buffer)
    }
    return .askForNext(DeviceAck(dataType: frame.dataType, seq: UInt16(buffer.count), cause: .expectNext))
  }
}

/// Sends one report message as fragments, the next after each app report ack (§4.4).
public struct ReportSender: Sendable {
  public enum Step: Equatable, Sendable {
    case send([UInt8])
    /// Every fragment has been acknowledged.
    case done
    /// The app reported a sequence error or acknowledged a wrong length.
    case failed
  }

  private let fragments: [ReportFragment]
  private var next = 0

  public init(message: [UInt8], dataType: FrameHeader.DataType, budget: Int) {
    fragments = ReportFragment.fragments(of: message, dataType: dataType, budget: budget)
  }

  public var frameCount: Int { fragments.count }

  /// The first fragment.
  public mutating func start() -> [UInt8] {
    next = 1
    return fragments[0].bytes
  }

  public mutating func receive(_ ack: ReportAck) -> Step {
    guard next > 0, next <= fragments.count else { return .failed }
    let sent = fragments[next - 1]
    guard ack.errorCause == ReportAck.causeOK, Int(ack.receivedLength) == Int(sent.offset) + sent.data.count else {
      return .failed
    }
    guard next < fragments.count else { return .done }
    defer { next += 1 }
    return .send(fragments[next].bytes)
  }
}
