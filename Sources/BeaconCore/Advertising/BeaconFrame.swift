/// One decoded beacon frame. JSON: the frame's own fields plus `"type"` (the `FrameKind` raw value), e.g.
/// `{"type":"iBeacon","uuid":"E2C56DB5-…","major":1,"minor":2,"measuredPower":-59}`. camelCase keys, hex
/// strings for raw bytes, UUIDs upper-case.
public enum BeaconFrame: Sendable, Hashable {
  case iBeacon(IBeaconFrame)
  case eddystoneUID(EddystoneUIDFrame)
  case eddystoneURL(EddystoneURLFrame)
  case eddystoneTLM(EddystoneTLMFrame)
  case eddystoneEID(EddystoneEIDFrame)
  case kSensor(KSensorFrame)
  case kkmSystem(KKMSystemFrame)
  case kkmScanResponse(KKMScanResponseFrame)
  /// A frame recognised by its header whose body did not decode.
  case malformed(MalformedFrame)

  public var kind: FrameKind {
    switch self {
    case .iBeacon: .iBeacon
    case .eddystoneUID: .eddystoneUID
    case .eddystoneURL: .eddystoneURL
    case .eddystoneTLM: .eddystoneTLM
    case .eddystoneEID: .eddystoneEID
    case .kSensor: .kSensor
    case .kkmSystem: .kkmSystem
    case .kkmScanResponse: .kkmScanResponse
    case .malformed(let m): m.frame
    }
  }
}

/// The frame types, in the order device records list them.
public enum FrameKind: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
  case iBeacon, eddystoneUID, eddystoneURL, eddystoneTLM, eddystoneEID, kSensor, kkmSystem, kkmScanResponse

  public static func < (a: FrameKind, b: FrameKind) -> Bool {
    allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
  }
}

/// A recognised frame that failed to decode: which frame, why, and its bytes.
public struct MalformedFrame: Sendable, Hashable, Codable {
  public var frame: FrameKind
  public var error: FrameDecodingError
  public var bytes: RawBytes

  public init(frame: FrameKind, error: FrameDecodingError, bytes: RawBytes) {
    self.frame = frame
    self.error = error
    self.bytes = bytes
  }
}

extension BeaconFrame: Codable {
  private enum TypeKey: String, CodingKey { case type, malformed, message }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: TypeKey.self)
    try c.encode(kind, forKey: .type)
    switch self {
    case .iBeacon(let f): try f.encode(to: encoder)
    case .eddystoneUID(let f): try f.encode(to: encoder)
    case .eddystoneURL(let f): try f.encode(to: encoder)
    case .eddystoneTLM(let f): try f.encode(to: encoder)
    case .eddystoneEID(let f): try f.encode(to: encoder)
    case .kSensor(let f): try f.encode(to: encoder)
    case .kkmSystem(let f): try f.encode(to: encoder)
    case .kkmScanResponse(let f): try f.encode(to: encoder)
    case .malformed(let m):
      try c.encode(true, forKey: .malformed)
      try c.encode(m.error.description, forKey: .message)
      try m.encode(to: encoder)
    }
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: TypeKey.self)
    let kind = try c.decode(FrameKind.self, forKey: .type)
    if try c.decodeIfPresent(Bool.self, forKey: .malformed) == true {
      self = .malformed(try MalformedFrame(from: decoder))
      return
    }
    switch kind {
    case .iBeacon: self = .iBeacon(try IBeaconFrame(from: decoder))
    case .eddystoneUID: self = .eddystoneUID(try EddystoneUIDFrame(from: decoder))
    case .eddystoneURL: self = .eddystoneURL(try EddystoneURLFrame(from: decoder))
    case .eddystoneTLM: self = .eddystoneTLM(try EddystoneTLMFrame(from: decoder))
    case .eddystoneEID: self = .eddystoneEID(try EddystoneEIDFrame(from: decoder))
    case .kSensor: self = .kSensor(try KSensorFrame(from: decoder))
    case .kkmSystem: self = .kkmSystem(try KKMSystemFrame(from: decoder))
    case .kkmScanResponse: self = .kkmScanResponse(try KKMScanResponseFrame(from: decoder))
    }
  }
}
