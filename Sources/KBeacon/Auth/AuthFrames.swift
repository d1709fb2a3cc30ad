/// Auth frames (docs/protocols/kbeacon.md §5), header byte `0x13` (type 1, SINGLE). Subtypes overlap between the
/// two directions, so each direction has its own type.
public enum AppAuthFrame: Hashable, Sendable {
  /// `13 01 R1[4] [UTC u32]`: phase 1; the optional UTC sets the beacon's clock.
  case phase1(random: [UInt8], utc: UInt32?)
  /// `13 02 D2[16]` or `13 0C D2s[8]`.
  case response(digest: [UInt8])

  public var bytes: [UInt8] {
    let header = FrameHeader(.auth, .single).byte
    switch self {
    case .phase1(let random, let utc):
      var out = [header, 0x01] + random
      if let utc { out.appendBigEndian(utc) }
      return out
    case .response(let digest):
      return [header, digest.count == 8 ? 0x0C : 0x02] + digest
    }
  }

  public init(bytes: [UInt8]) throws(KBeaconError) {
    var reader = FrameReader(bytes)
    let header = try FrameHeader(byte: reader.u8("header"))
    guard header.dataType == .auth else { throw .malformedFrame("not an auth frame") }
    switch try reader.u8("auth subtype") {
    case 0x01:
      let random = try reader.take(4, "R1")
      switch reader.remaining {
      case 0: self = .phase1(random: random, utc: nil)
      case 4: self = .phase1(random: random, utc: try reader.u32("UTC"))
      default: throw .malformedFrame("auth phase 1 has \(bytes.count) bytes")
      }
    case 0x02:
      guard reader.remaining == 16 else { throw .malformedFrame("auth response digest is not 16 bytes") }
      self = .response(digest: reader.rest())
    case 0x0C:
      guard reader.remaining == 8 else { throw .malformedFrame("short auth response digest is not 8 bytes") }
      self = .response(digest: reader.rest())
    case let other: throw .malformedFrame("unknown app auth subtype 0x\(String(other, radix: 16))")
    }
  }
}

public enum DeviceAuthFrame: Hashable, Sendable {
  /// `13 01 R2[4] D1[16]` (full) or `13 0B R2[4] D1s[8]` (short, when 8 digest bytes).
  case challenge(random: [UInt8], digest: [UInt8])
  /// `13 02 MTU`: authenticated; the device's ATT MTU.
  case success(mtu: UInt8)
  /// `13 F1`: `AUTH_RETURN_FAIL`.
  case failure

  public var bytes: [UInt8] {
    let header = FrameHeader(.auth, .single).byte
    switch self {
    case .challenge(let random, let digest): return [header, digest.count == 8 ? 0x0B : 0x01] + random + digest
    case .success(let mtu): return [header, 0x02, mtu]
    case .failure: return [header, 0xF1]
    }
  }

  /// Parses a device auth frame. Only the high nibble of the header is checked, as the SDKs do (§5).
  public init(bytes: [UInt8]) throws(KBeaconError) {
    var reader = FrameReader(bytes)
    guard try reader.u8("header") >> 4 == FrameHeader.DataType.auth.rawValue else {
      throw .malformedFrame("not an auth frame")
    }
    switch try reader.u8("auth subtype") {
    case 0x01:
      let random = try reader.take(4, "R2")
      guard reader.remaining == 16 else { throw .malformedFrame("challenge digest is not 16 bytes") }
      self = .challenge(random: random, digest: reader.rest())
    case 0x0B:
      let random = try reader.take(4, "R2")
      guard reader.remaining == 8 else { throw .malformedFrame("short challenge digest is not 8 bytes") }
      self = .challenge(random: random, digest: reader.rest())
    case 0x02: self = .success(mtu: try reader.u8("MTU"))
    case 0xF1: self = .failure
    case let other: throw .malformedFrame("unknown device auth subtype 0x\(String(other, radix: 16))")
    }
  }
}
