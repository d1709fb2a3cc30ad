/// Sensor history requests, the payload of a HEX (type 0) request (docs/protocols/kbeacon.md §9).
public enum HistoryRequest: Hashable, Sendable {
  /// Which records a read returns.
  public enum Order: UInt8, Sendable, CaseIterable {
    /// From `position` forward; the device's unread pointer is not moved.
    case forward = 0
    /// From `position` backwards.
    case reverse = 1
    /// Unread records; the device advances its unread pointer.
    case unread = 2
  }

  /// `pos` value meaning "don't care / from the last record".
  public static let anyPosition: UInt32 = 0xFFFF_FFFF
  /// Connection interval the v2 SDK requests: 24 × 1.25 ms = 30 ms.
  public static let sdkConnectionInterval: UInt8 = 24

  /// `01 srType`.
  case info(sensor: UInt8)
  /// v2 `02 srType pos[4] count[2] option conn-interval`; v1 has no conn-interval byte (`connectionInterval` nil).
  case records(sensor: UInt8, position: UInt32, count: UInt16, order: Order, connectionInterval: UInt8?)
  /// `03 srType`.
  case clear(sensor: UInt8)

  public var bytes: [UInt8] {
    switch self {
    case .info(let s): return [0x01, s]
    case .clear(let s): return [0x03, s]
    case .records(let s, let pos, let count, let order, let itvl):
      var out: [UInt8] = [0x02, s]
      out.appendBigEndian(pos)
      out.appendBigEndian(count)
      out.append(order.rawValue)
      if let itvl { out.append(itvl) }
      return out
    }
  }

  /// Parses a request (device side).
  public init(bytes: [UInt8]) throws(KBeaconError) {
    var r = FrameReader(bytes)
    let op = try r.u8("history opcode")
    let sensor = try r.u8("sensor type")
    switch op {
    case 0x01: self = .info(sensor: sensor)
    case 0x03: self = .clear(sensor: sensor)
    case 0x02:
      let pos = try r.u32("position")
      let count = try r.u16("count")
      guard let order = Order(rawValue: try r.u8("order")) else { throw .malformedFrame("unknown history order") }
      self = .records(
        sensor: sensor, position: pos, count: count, order: order,
        connectionInterval: r.remaining > 0 ? try r.u8("interval") : nil)
    default: throw .malformedFrame("unknown history opcode 0x\(String(op, radix: 16))")
    }
  }
}

/// The info response `01 srType total[4] unread[4] deviceUTC[4]` (§9, ≥ 14 bytes).
public struct HistoryInfo: Hashable, Sendable {
  public var sensor: UInt8
  public var total: UInt32
  public var unread: UInt32
  public var deviceUTC: UInt32

  public init(sensor: UInt8, total: UInt32, unread: UInt32, deviceUTC: UInt32) {
    self.sensor = sensor
    self.total = total
    self.unread = unread
    self.deviceUTC = deviceUTC
  }

  public init(bytes: [UInt8]) throws(KBeaconError) {
    guard bytes.count >= 14, bytes[0] == 0x01 else {
      throw .sensorMessageMalformed("info response needs 14 bytes starting 01")
    }
    var r = FrameReader(bytes, at: 1)
    do {
      self.init(
        sensor: try r.u8("type"), total: try r.u32("total"), unread: try r.u32("unread"), deviceUTC: try r.u32("utc"))
    } catch { throw .sensorMessageMalformed(error.description) }
  }

  public var bytes: [UInt8] {
    var out: [UInt8] = [0x01, sensor]
    out.appendBigEndian(total)
    out.appendBigEndian(unread)
    out.appendBigEndian(deviceUTC)
    return out
  }

  /// The v1 info reply (A1 `KBSensorHistoryData`): `tag(0|1) ? total[2] unread[2] utc[4]`, parsed from
  /// offset 2 (§9, v1 differences). Byte 1 is unexplained in the spec; we read and write it as the sensor
  /// type [I].
  public init(legacyBytes bytes: [UInt8]) throws(KBeaconError) {
    guard bytes.count >= 10, bytes[0] <= 1 else {
      throw .sensorMessageMalformed("v1 info response needs 10 bytes starting 00 or 01")
    }
    var r = FrameReader(bytes, at: 1)
    do {
      self.init(
        sensor: try r.u8("type"), total: UInt32(try r.u16("total")), unread: UInt32(try r.u16("unread")),
        deviceUTC: try r.u32("utc"))
    } catch { throw .sensorMessageMalformed(error.description) }
  }

  /// The v1 form of this reply (counts clamped to 16 bits).
  public var legacyBytes: [UInt8] {
    var out: [UInt8] = [0x01, sensor]
    out.appendBigEndian(UInt16(clamping: total))
    out.appendBigEndian(UInt16(clamping: unread))
    out.appendBigEndian(deviceUTC)
    return out
  }

  /// `hostUTC − deviceUTC`, added to device-relative record times.
  public func clockOffset(hostUTC: UInt32) -> Int64 { Int64(hostUTC) - Int64(deviceUTC) }
}
