/// One AD structure of an advertising or scan-response payload (Core Vol 3 Part C §11, data types in the
/// Core Specification Supplement Part A §1). Payloads share the report's storage (`RawBytes`).
public enum ADStructure: Sendable, Hashable {
  /// Flags (Supplement §1.3); the first octet (later octets, if any, are ignored).
  case flags(UInt8)
  /// Shortened (0x08) or complete (0x09) local name (Supplement §1.2), decoded as UTF-8 with repair.
  case localName(String, complete: Bool)
  /// A 16-, 32- or 128-bit service UUID list, complete or incomplete (Supplement §1.1).
  case serviceUUIDs(ServiceUUIDList)
  /// Service data for a 16-, 32- or 128-bit UUID (Supplement §1.11).
  case serviceData(ServiceData)
  /// Manufacturer specific data (Supplement §1.4): the company ID (little-endian on air) and the rest.
  case manufacturerData(companyID: UInt16, payload: RawBytes)
  /// Tx power level in dBm (Supplement §1.5).
  case txPowerLevel(Int8)
  /// An AD type this module does not interpret, kept as is.
  case unknown(type: UInt8, payload: RawBytes)
  /// An AD structure that could not be read: too short for its type, or its length runs past the end.
  case malformed(type: UInt8?, payload: RawBytes, issue: ADIssue)
}

/// What is wrong with a malformed AD structure.
public enum ADIssue: Error, Sendable, Hashable, Codable, CustomStringConvertible {
  /// The length octet claims more bytes than the report has (`declared` includes the type octet).
  case lengthPastEnd(declared: Int, available: Int)
  /// The payload is shorter than its type needs.
  case payloadTooShort(minimum: Int, actual: Int)
  /// A UUID list whose length is not a multiple of the UUID width.
  case notMultipleOfUUIDWidth(width: Int, actual: Int)

  public var description: String {
    switch self {
    case .lengthPastEnd(let declared, let available):
      "AD length \(declared) runs past the end of the data (\(available) byte\(available == 1 ? "" : "s") left)"
    case .payloadTooShort(let minimum, let actual):
      "payload of \(actual) byte\(actual == 1 ? "" : "s"), at least \(minimum) needed"
    case .notMultipleOfUUIDWidth(let width, let actual):
      "UUID list of \(actual) byte\(actual == 1 ? "" : "s") is not a multiple of \(width)"
    }
  }
}

/// A service UUID list as advertised: `width` 2, 4 or 16 bytes per UUID, little-endian on air.
public struct ServiceUUIDList: Sendable, Hashable {
  public var width: Int
  public var complete: Bool
  /// The UUIDs exactly as on air.
  public var raw: RawBytes

  public init(width: Int, complete: Bool, raw: RawBytes) {
    self.width = width
    self.complete = complete
    self.raw = raw
  }

  /// The UUIDs, decoded on demand.
  public var uuids: [BluetoothUUID] {
    stride(from: 0, to: raw.count - width + 1, by: width).compactMap {
      BluetoothUUID(littleEndian: raw.slice.dropFirst($0).prefix(width))
    }
  }

  /// True when the list names this 16-bit UUID (no allocation).
  public func contains16(_ uuid: UInt16) -> Bool {
    guard width == 2 else { return false }
    var i = 0
    while i + 1 < raw.count {
      if raw.uint16LE(at: i) == uuid { return true }
      i += 2
    }
    return false
  }
}

/// Service data: the UUID (`width` bytes, little-endian on air) and the data after it.
public struct ServiceData: Sendable, Hashable {
  public var width: Int
  /// The UUID octets as on air.
  public var rawUUID: RawBytes
  public var payload: RawBytes

  public init(width: Int, rawUUID: RawBytes, payload: RawBytes) {
    self.width = width
    self.rawUUID = rawUUID
    self.payload = payload
  }

  /// The 16-bit UUID, when this is 16-bit service data (no allocation).
  public var uuid16: UInt16? { width == 2 ? rawUUID.uint16LE(at: 0) : nil }

  public var uuid: BluetoothUUID { BluetoothUUID(littleEndian: rawUUID.slice)! }
}
