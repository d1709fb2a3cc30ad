/// Reassembles report fragments into messages (docs/protocols/kbeacon.md §4.4): START resets the buffer, MIDDLE and
/// END must continue exactly where the buffer ends, SINGLE is a whole message. Used by the app for device
/// reports; the same rule applies to the device reassembling requests (`RequestAssembler`).
public struct ReportAssembler: Sendable {
  /// Receive buffer limit: 4096 bytes, as the current Android SDK (A2); older SDKs used 1024.
  public static let defaultCapacity = 4096

  public enum Step: Equatable, Sendable {
    /// The fragment was taken; `held` bytes are buffered.
    case partial(held: Int)
    /// A message is complete (END or SINGLE).
    case complete([UInt8])
  }

  public let capacity: Int
  public private(set) var buffer: [UInt8] = []

  public init(capacity: Int = defaultCapacity) { self.capacity = capacity }

  /// Starts a message with bytes that came outside a fragment (payload of a cause-5 ack, §4.3).
  public mutating func seed(_ bytes: [UInt8]) throws(KBeaconError) {
    guard bytes.count <= capacity else { throw .malformedFrame("report larger than \(capacity) bytes") }
    buffer = bytes
  }

  public mutating func take(position: FrameHeader.Position, offset: UInt16, data: [UInt8]) throws(KBeaconError) -> Step
  {
    switch position {
    case .start, .single:
      guard offset == 0 else { throw .malformedFrame("first fragment at offset \(offset), expected 0") }
      buffer = []
    case .middle, .end:
      guard Int(offset) == buffer.count else {
        throw .malformedFrame("fragment at offset \(offset), expected \(buffer.count)")
      }
    }
    guard buffer.count + data.count <= capacity else { throw .malformedFrame("report larger than \(capacity) bytes") }
    buffer += data
    if position == .end || position == .single {
      defer { buffer = [] }
      return .complete(buffer)
    }
    return .partial(held: buffer.count)
  }
}
