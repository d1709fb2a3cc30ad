/// SLIP framing as the Secure DFU serial transport uses it (docs/protocols/nordic-dfu.md §4; RFC 1055): each message is
/// its bytes with 0xC0 → `DB DC` and 0xDB → `DB DD`, followed by one 0xC0. No leading END, no CRC.
public enum SLIP {
  public static let end: UInt8 = 0xC0
  public static let escape: UInt8 = 0xDB
  public static let escapedEnd: UInt8 = 0xDC
  public static let escapedEscape: UInt8 = 0xDD

  /// One encoded frame, END included.
  public static func encode(_ payload: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(payload.count + payload.count / 16 + 1)
    for b in payload {
      switch b {
      case end: out += [escape, escapedEnd]
      case escape: out += [escape, escapedEscape]
      default: out.append(b)
      }
    }
    out.append(end)
    return out
  }
}

/// Reassembles SLIP frames from a byte stream fed in arbitrary pieces. Empty frames (back-to-back ENDs)
/// are skipped; a frame with an invalid escape is dropped and reported, and decoding resumes at the next
/// END, as a real UART peer would after line noise. Frames longer than `maximumFrameSize` are dropped too.
public struct SLIPDecoder: Sendable {
  public enum Output: Equatable, Sendable {
    case frame([UInt8])
    case invalidFrame
  }

  public let maximumFrameSize: Int
  private var buffer: [UInt8] = []
  private var escaping = false
  private var broken = false

  public init(maximumFrameSize: Int = 4096) { self.maximumFrameSize = maximumFrameSize }

  /// Feeds bytes; returns every frame completed by them, in order.
  public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Output] {
    var out: [Output] = []
    for b in bytes {
      if b == SLIP.end {
        if broken || escaping {
          out.append(.invalidFrame)
        } else if !buffer.isEmpty {
          out.append(.frame(buffer))
        }
        buffer.removeAll(keepingCapacity: true)
        escaping = false
        broken = false
        continue
      }
      guard !broken else { continue }
      if escaping {
        escaping = false
        switch b {
        case SLIP.escapedEnd: buffer.append(SLIP.end)
        case SLIP.escapedEscape: buffer.append(SLIP.escape)
        default:
          broken = true
          continue
        }
      } else if b == SLIP.escape {
        escaping = true
        continue
      } else {
        buffer.append(b)
      }
      if buffer.count > maximumFrameSize { broken = true }
    }
    return out
  }
}
