/// The AD structures of one advertising or scan-response payload (Core Vol 3 Part C §11: a sequence of
/// `[length][type][length−1 bytes]`). Parsing never traps and never reads out of bounds:
/// - a zero length octet ends the significant part (§11: the rest is padding) and parsing stops;
/// - a length running past the end yields one `.malformed(.lengthPastEnd)` element for the remainder;
/// - a structure too short for its type yields `.malformed(.payloadTooShort)` and parsing continues.
/// `init(validating:)` throws the first issue instead. The hot path uses no Foundation and allocates only
/// the element array (payloads share the input's storage; names up to 15 UTF-8 bytes are stored inline).
public struct AdvertisingData: Sendable, Hashable {
  public var elements: [ADStructure]

  public init(elements: [ADStructure]) { self.elements = elements }

  /// Lenient parse: malformed structures become `.malformed` elements.
  public init(_ bytes: [UInt8]) { self.init(bytes[...]) }

  public init(_ bytes: ArraySlice<UInt8>) {
    var elements: [ADStructure] = []
    elements.reserveCapacity(4)
    Self.forEachStructure(in: bytes) { element, _, _ in elements.append(element) }
    self.elements = elements
  }

  /// The one parsing loop: calls `body` with each element, and for well-formed structures also the AD type
  /// and payload (so a caller can look for frames without taking the element apart again).
  @inline(__always)
  static func forEachStructure(
    in bytes: ArraySlice<UInt8>, _ body: (consuming ADStructure, UInt8?, RawBytes?) -> Void
  ) {
    var i = bytes.startIndex
    let end = bytes.endIndex
    while i < end {
      let length = Int(bytes[i])
      if length == 0 { break }
      let bodyStart = i + 1
      guard length <= end - bodyStart else {
        let type: UInt8? = bodyStart < end ? bytes[bodyStart] : nil
        let rest = RawBytes(bytes[min(bodyStart + 1, end)..<end])
        body(
          .malformed(type: type, payload: rest, issue: .lengthPastEnd(declared: length, available: end - bodyStart)),
          nil, nil)
        break
      }
      let type = bytes[bodyStart]
      let payload = RawBytes(bytes[(bodyStart + 1)..<(bodyStart + length)])
      body(interpret(type: type, payload: payload), type, payload)
      i = bodyStart + length
    }
  }

  /// Strict parse: throws the first `ADIssue` found.
  public init(validating bytes: [UInt8]) throws(ADIssue) {
    self.init(bytes)
    for case .malformed(_, _, let issue) in elements { throw issue }
  }

  @inline(__always)
  static func interpret(type: UInt8, payload: RawBytes) -> ADStructure {
    switch type {
    case ADType.flags:
      guard let first = payload.first else { return tooShort(type, payload, 1) }
      return .flags(first)
    case ADType.shortenedLocalName, ADType.completeLocalName:
      return .localName(String(decoding: payload.slice, as: UTF8.self), complete: type == ADType.completeLocalName)
    case ADType.incompleteUUIDs16, ADType.completeUUIDs16:
      return uuidList(type, payload, width: 2, complete: type == ADType.completeUUIDs16)
    case ADType.incompleteUUIDs32, ADType.completeUUIDs32:
      return uuidList(type, payload, width: 4, complete: type == ADType.completeUUIDs32)
    case ADType.incompleteUUIDs128, ADType.completeUUIDs128:
      return uuidList(type, payload, width: 16, complete: type == ADType.completeUUIDs128)
    case ADType.serviceData16: return serviceData(type, payload, width: 2)
    case ADType.serviceData32: return serviceData(type, payload, width: 4)
    case ADType.serviceData128: return serviceData(type, payload, width: 16)
    case ADType.manufacturerData:
      guard payload.count >= 2 else { return tooShort(type, payload, 2) }
      return .manufacturerData(companyID: payload.uint16LE(at: 0), payload: payload.dropping(2))
    case ADType.txPowerLevel:
      guard payload.count >= 1 else { return tooShort(type, payload, 1) }
      return .txPowerLevel(payload.int8(at: 0))
    default:
      return .unknown(type: type, payload: payload)
    }
  }

  private static func tooShort(_ type: UInt8, _ payload: RawBytes, _ minimum: Int) -> ADStructure {
    .malformed(type: type, payload: payload, issue: .payloadTooShort(minimum: minimum, actual: payload.count))
  }

  private static func uuidList(_ type: UInt8, _ payload: RawBytes, width: Int, complete: Bool) -> ADStructure {
    guard payload.count % width == 0 else {
      return .malformed(
        type: type, payload: payload, issue: .notMultipleOfUUIDWidth(width: width, actual: payload.count))
    }
    return .serviceUUIDs(ServiceUUIDList(width: width, complete: complete, raw: payload))
  }

  private static func serviceData(_ type: UInt8, _ payload: RawBytes, width: Int) -> ADStructure {
    guard payload.count >= width else { return tooShort(type, payload, width) }
    return .serviceData(ServiceData(width: width, rawUUID: payload.bytes(0..<width), payload: payload.dropping(width)))
  }
}

extension AdvertisingData {
  /// The local name, preferring the complete one.
  public var localName: String? {
    var shortened: String? = nil
    for case .localName(let name, let complete) in elements {
      if complete { return name }
      shortened = shortened ?? name
    }
    return shortened
  }

  public var flags: UInt8? {
    for case .flags(let value) in elements { return value }
    return nil
  }

  public var txPowerLevel: Int8? {
    for case .txPowerLevel(let value) in elements { return value }
    return nil
  }
}
