/// Builds raw AD structures (`[length][type][payload]`, Core Vol 3 Part C §11) — the inverse of
/// `AdvertisingData`, used by the simulated advertisers and by tests.
public enum ADEncoder {
  /// One AD structure. The payload must fit a legacy PDU (≤ 30 bytes); longer payloads are a programming
  /// error of the caller and are cut to fit so the length octet stays truthful.
  public static func structure(type: UInt8, payload: some Collection<UInt8>) -> [UInt8] {
    let body = Array(payload.prefix(254))
    return [UInt8(body.count + 1), type] + body
  }

  /// Flags; 0x06 = LE General Discoverable + BR/EDR not supported.
  public static func flags(_ value: UInt8 = 0x06) -> [UInt8] { structure(type: ADType.flags, payload: [value]) }

  public static func localName(_ name: String, complete: Bool = true) -> [UInt8] {
    structure(type: complete ? ADType.completeLocalName : ADType.shortenedLocalName, payload: Array(name.utf8))
  }

  public static func completeUUIDs16(_ uuids: [UInt16]) -> [UInt8] {
    var payload: [UInt8] = []
    for u in uuids { payload.appendLE(u) }
    return structure(type: ADType.completeUUIDs16, payload: payload)
  }

  /// Complete List of 128-bit Service UUIDs (type 0x07), each little-endian (Core Supplement Part A §1.1).
  public static func completeUUIDs128(_ uuids: [BluetoothUUID]) -> [UInt8] {
    structure(type: ADType.completeUUIDs128, payload: uuids.flatMap { Array($0.bytes.reversed()) })
  }

  public static func serviceData16(_ uuid: UInt16, _ data: [UInt8]) -> [UInt8] {
    var payload: [UInt8] = []
    payload.appendLE(uuid)
    return structure(type: ADType.serviceData16, payload: payload + data)
  }

  public static func manufacturerData(_ company: UInt16, _ data: [UInt8]) -> [UInt8] {
    var payload: [UInt8] = []
    payload.appendLE(company)
    return structure(type: ADType.manufacturerData, payload: payload + data)
  }

  public static func txPowerLevel(_ dBm: Int8) -> [UInt8] {
    structure(type: ADType.txPowerLevel, payload: [UInt8(bitPattern: dBm)])
  }
}
