/// An advertising or scan-response payload decoded in one pass: its AD structures and the beacon frames
/// found in them. Which element carries which frame:
/// - manufacturer data 0x004C starting `02 15` → iBeacon (docs/protocols/beacon-formats.md §1);
/// - manufacturer data 0x0A53 starting 0x21 / 0x22 → KSensor / System (docs/protocols/kbeacon.md §10.3, §10.4);
/// - service data 0xFEAA with frame type 0x00 UID, 0x10 URL, 0x20 TLM, 0x30 EID (docs/protocols/beacon-formats.md §2),
///   0x21 KSensor, 0x22 System (docs/protocols/kbeacon.md §10.3–10.4);
/// - service data 0x2080 → KKM scan response (docs/protocols/kbeacon.md §10.2).
/// Other elements carry no frame. A recognised frame that fails to decode becomes `.malformed`.
/// JSON: `{"elements":[…],"frames":[…]}`.
public struct DecodedAdvertisement: Sendable, Hashable, Codable {
  public var elements: [ADStructure]
  public var frames: [BeaconFrame]

  public init(elements: [ADStructure], frames: [BeaconFrame]) {
    self.elements = elements
    self.frames = frames
  }

  /// Parses and decodes in one pass (the hot path: the element array, the frame array and strings longer
  /// than 15 bytes are the only allocations).
  public init(_ bytes: [UInt8]) {
    var elements: [ADStructure] = []
    elements.reserveCapacity(4)
    var frames: [BeaconFrame] = []
    AdvertisingData.forEachStructure(in: bytes[...]) { element, type, payload in
      if let type, let payload, let frame = Self.frame(type: type, payload: payload) { frames.append(frame) }
      elements.append(element)
    }
    self.elements = elements
    self.frames = frames
  }

  /// The frame carried by a well-formed AD structure of this type and payload, if any.
  @inline(__always)
  static func frame(type: UInt8, payload: RawBytes) -> BeaconFrame? {
    switch type {
    case ADType.manufacturerData where payload.count >= 2:
      let rest = payload.dropping(2)
      switch payload.uint16LE(at: 0) {
      case BeaconConstants.appleCompanyID where IBeaconFrame.matches(rest):
        return decode(.iBeacon, rest) { p throws(FrameDecodingError) in .iBeacon(try IBeaconFrame(payload: p)) }
      case BeaconConstants.kkmCompanyID: return kkmFrame(rest)
      default: return nil
      }
    case ADType.serviceData16 where payload.count >= 2:
      switch payload.uint16LE(at: 0) {
      case BeaconConstants.eddystoneService: return eddystoneFrame(payload.dropping(2))
      case BeaconConstants.kkmScanResponseService:
        return .kkmScanResponse(KKMScanResponseFrame(payload: payload.dropping(2)))
      default: return nil
      }
    default:
      return nil
    }
  }

  private static func eddystoneFrame(_ p: RawBytes) -> BeaconFrame? {
    guard let type = p.first else { return nil }
    switch type {
    case 0x00:
      return decode(.eddystoneUID, p) { p throws(FrameDecodingError) in .eddystoneUID(try EddystoneUIDFrame(payload: p))
      }
    case 0x10:
      return decode(.eddystoneURL, p) { p throws(FrameDecodingError) in .eddystoneURL(try EddystoneURLFrame(payload: p))
      }
    case 0x20:
      return decode(.eddystoneTLM, p) { p throws(FrameDecodingError) in .eddystoneTLM(try EddystoneTLMFrame(payload: p))
      }
    case 0x30:
      return decode(.eddystoneEID, p) { p throws(FrameDecodingError) in .eddystoneEID(try EddystoneEIDFrame(payload: p))
      }
    default: return kkmFrame(p)
    }
  }

  private static func kkmFrame(_ p: RawBytes) -> BeaconFrame? {
    switch p.first {
    case 0x21?: return decode(.kSensor, p) { p throws(FrameDecodingError) in .kSensor(try KSensorFrame(payload: p)) }
    case 0x22?:
      return decode(.kkmSystem, p) { p throws(FrameDecodingError) in .kkmSystem(try KKMSystemFrame(payload: p)) }
    default: return nil
    }
  }

  @inline(__always)
  private static func decode(
    _ kind: FrameKind, _ payload: RawBytes, _ body: (RawBytes) throws(FrameDecodingError) -> BeaconFrame
  ) -> BeaconFrame {
    do throws(FrameDecodingError) {
      return try body(payload)
    } catch {
      return .malformed(MalformedFrame(frame: kind, error: error, bytes: payload))
    }
  }
}

extension DecodedAdvertisement {
  /// The local name, preferring the complete one.
  public var localName: String? { AdvertisingData(elements: elements).localName }
  public var flags: UInt8? { AdvertisingData(elements: elements).flags }
  public var txPowerLevel: Int8? { AdvertisingData(elements: elements).txPowerLevel }
  /// The 128-bit service UUIDs listed (complete or incomplete lists), in order.
  public var serviceUUIDs128: [BluetoothUUID] {
    var out: [BluetoothUUID] = []
    for case .serviceUUIDs(let list) in elements where list.width == 16 { out += list.uuids }
    return out
  }
}
