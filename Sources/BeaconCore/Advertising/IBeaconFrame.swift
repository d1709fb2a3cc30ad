/// Apple iBeacon (docs/protocols/beacon-formats.md §1; docs/protocols/kbeacon.md §10.1): manufacturer data for company 0x004C
/// whose payload is `02 15 UUID[16] major[2 BE] minor[2 BE] measuredPower[s8]` — 23 bytes after the company
/// ID, so the AD length is exactly 0x1A. The flags AD is not required (a scan response or proxy may differ).
public struct IBeaconFrame: Sendable, Hashable, Codable {
  public var uuid: ProximityUUID
  public var major: UInt16
  public var minor: UInt16
  /// RSSI at 1 m in dBm (signed), e.g. 0xC5 = −59.
  public var measuredPower: Int8

  public init(uuid: ProximityUUID, major: UInt16, minor: UInt16, measuredPower: Int8) {
    self.uuid = uuid
    self.major = major
    self.minor = minor
    self.measuredPower = measuredPower
  }

  /// Bytes after the company ID.
  static let payloadLength = 23

  /// True when Apple manufacturer data carries the iBeacon type `02 15` (then it must decode as one).
  static func matches(_ payload: RawBytes) -> Bool {
    payload.count >= 2 && payload[0] == 0x02 && payload[1] == 0x15
  }

  /// `payload` is the manufacturer data after the company ID, starting at `02 15`.
  public init(payload: RawBytes) throws(FrameDecodingError) {
    guard payload.count == Self.payloadLength else {
      // Report the AD length (type + company + payload), which is what the spec fixes at 0x1A.
      throw .wrongLength(expected: Self.payloadLength + 3, actual: payload.count + 3)
    }
    uuid = ProximityUUID(payload.bytes(2..<18))
    major = payload.uint16BE(at: 18)
    minor = payload.uint16BE(at: 20)
    measuredPower = payload.int8(at: 22)
  }

  /// The manufacturer data AD structure (`1A FF 4C 00 02 15 …`).
  public var adStructure: [UInt8] {
    var p: [UInt8] = [0x02, 0x15] + uuid.bytes
    p.appendBE(major)
    p.appendBE(minor)
    p.append(UInt8(bitPattern: measuredPower))
    return ADEncoder.manufacturerData(BeaconConstants.appleCompanyID, p)
  }
}
