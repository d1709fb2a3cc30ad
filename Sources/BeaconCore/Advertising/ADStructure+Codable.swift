/// JSON shape of an AD structure (camelCase keys, hex strings for bytes, UUIDs upper-case):
/// `{"type":"flags","value":6}`, `{"type":"localName","name":"KBPro_214810","complete":true}`,
/// `{"type":"serviceUUIDs","bits":16,"complete":true,"uuids":["FEAA"]}`,
/// `{"type":"serviceData","bits":16,"uuid":"FEAA","data":"2000…"}`,
/// `{"type":"manufacturerData","companyID":76,"data":"0215…"}`, `{"type":"txPowerLevel","dBm":-4}`,
/// `{"type":"unknown","adType":42,"data":"…"}`, `{"type":"malformed","adType":255,"data":"…","issue":{…},"message":"…"}`.
extension ADStructure: Codable {
  enum CodingKeys: String, CodingKey {
    case type, value, name, complete, bits, uuids, uuid, data, companyID, dBm, adType, issue, message
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    switch self {
    case .flags(let value):
      try c.encode("flags", forKey: .type)
      try c.encode(value, forKey: .value)
    case .localName(let name, let complete):
      try c.encode("localName", forKey: .type)
      try c.encode(name, forKey: .name)
      try c.encode(complete, forKey: .complete)
    case .serviceUUIDs(let list):
      try c.encode("serviceUUIDs", forKey: .type)
      try c.encode(list.width * 8, forKey: .bits)
      try c.encode(list.complete, forKey: .complete)
      try c.encode(list.uuids, forKey: .uuids)
    case .serviceData(let data):
      try c.encode("serviceData", forKey: .type)
      try c.encode(data.width * 8, forKey: .bits)
      try c.encode(data.uuid, forKey: .uuid)
      try c.encode(data.payload, forKey: .data)
    case .manufacturerData(let company, let payload):
      try c.encode("manufacturerData", forKey: .type)
      try c.encode(company, forKey: .companyID)
      try c.encode(payload, forKey: .data)
    case .txPowerLevel(let dBm):
      try c.encode("txPowerLevel", forKey: .type)
      try c.encode(dBm, forKey: .dBm)
    case .unknown(let type, let payload):
      try c.encode("unknown", forKey: .type)
      try c.encode(type, forKey: .adType)
      try c.encode(payload, forKey: .data)
    case .malformed(let type, let payload, let issue):
      try c.encode("malformed", forKey: .type)
      try c.encodeIfPresent(type, forKey: .adType)
      try c.encode(payload, forKey: .data)
      try c.encode(issue, forKey: .issue)
      try c.encode(issue.description, forKey: .message)
    }
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let type = try c.decode(String.self, forKey: .type)
    switch type {
    case "flags": self = .flags(try c.decode(UInt8.self, forKey: .value))
    case "localName":
      self = .localName(try c.decode(String.self, forKey: .name), complete: try c.decode(Bool.self, forKey: .complete))
    case "serviceUUIDs":
      let width = try Self.width(c)
      let uuids = try c.decode([BluetoothUUID].self, forKey: .uuids)
      let raw = uuids.flatMap { Self.onAir($0, width: width) }
      self = .serviceUUIDs(
        ServiceUUIDList(width: width, complete: try c.decode(Bool.self, forKey: .complete), raw: RawBytes(raw)))
    case "serviceData":
      let width = try Self.width(c)
      let uuid = try c.decode(BluetoothUUID.self, forKey: .uuid)
      self = .serviceData(
        ServiceData(
          width: width, rawUUID: RawBytes(Self.onAir(uuid, width: width)),
          payload: try c.decode(RawBytes.self, forKey: .data)))
    case "manufacturerData":
      self = .manufacturerData(
        companyID: try c.decode(UInt16.self, forKey: .companyID), payload: try c.decode(RawBytes.self, forKey: .data))
    case "txPowerLevel": self = .txPowerLevel(try c.decode(Int8.self, forKey: .dBm))
    case "unknown":
      self = .unknown(
        type: try c.decode(UInt8.self, forKey: .adType), payload: try c.decode(RawBytes.self, forKey: .data))
    case "malformed":
      self = .malformed(
        type: try c.decodeIfPresent(UInt8.self, forKey: .adType), payload: try c.decode(RawBytes.self, forKey: .data),
        issue: try c.decode(ADIssue.self, forKey: .issue))
    default:
      throw DecodingError.dataCorruptedError(
        forKey: .type, in: c, debugDescription: "unknown AD structure type '\(type)'")
    }
  }

  private static func width(_ c: KeyedDecodingContainer<CodingKeys>) throws -> Int {
    let bits = try c.decode(Int.self, forKey: .bits)
    guard [16, 32, 128].contains(bits) else {
      throw DecodingError.dataCorruptedError(forKey: .bits, in: c, debugDescription: "bits must be 16, 32 or 128")
    }
    return bits / 8
  }

  /// The little-endian on-air form of `uuid` in `width` bytes (the low bytes of the 128-bit value for
  /// 16/32-bit UUIDs on the Base UUID).
  private static func onAir(_ uuid: BluetoothUUID, width: Int) -> [UInt8] {
    width == 16 ? uuid.bytes.reversed() : Array(uuid.bytes[(4 - width)..<4].reversed())
  }
}
