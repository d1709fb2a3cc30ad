/// One history record (docs/protocols/kbeacon.md §9). Every record starts with `utc u32 BE`; the rest depends
/// on the sensor type. Times below `relativeTimeLimit` are device-relative and get the clock offset added.
public struct SensorRecord: Hashable, Sendable {
  public enum Reading: Hashable, Sendable {
    /// HT 0x2: temp s8.8, humidity 8.8.
    case humidity(celsius: Double, percent: Double)
    /// Alarm 0x8: status u8.
    case alarm(status: UInt8)
    /// PIR 0x10: indication u8 (bit 0 = PIR alert).
    case pir(indication: UInt8)
    /// Light 0x20: type u8 (0 PIR, 1 light), reserved u8, lux u16.
    case light(type: UInt8, reserved: UInt8, lux: UInt16)
    /// VOC 0x40: voc index u16, nox index u16.
    case voc(index: UInt16, nox: UInt16)
    /// CO2 0x41: ppm u16, temp s8.8, humidity 8.8.
    case co2(ppm: UInt16, celsius: Double, percent: Double)
  }

  /// `MIN_UTC_TIME_SECONDS` ≈ 2000-01-01.
  public static let relativeTimeLimit: UInt32 = 946_080_000

  public var utc: UInt32
  public var reading: Reading

  public init(utc: UInt32, reading: Reading) {
    self.utc = utc
    self.reading = reading
  }

  /// Bytes per record for a sensor type, nil for types without history.
  public static func size(sensor: UInt8) -> Int? {
    switch sensor {
    case 0x02: 8
    case 0x08, 0x10: 5
    case 0x20, 0x40: 8
    case 0x41: 10
    default: nil
    }
  }

  public init(sensor: UInt8, bytes: ArraySlice<UInt8>) throws(KBeaconError) {
    guard let size = Self.size(sensor: sensor) else {
      throw .sensorMessageMalformed("no history layout for sensor 0x\(String(sensor, radix: 16))")
    }
    guard bytes.count == size else { throw .sensorMessageMalformed("record of \(bytes.count) bytes, expected \(size)") }
    var r = FrameReader(bytes)
    do {
      utc = try r.u32("utc")
      switch sensor {
      case 0x02: reading = .humidity(celsius: fixed88(try r.u16("temp")), percent: fixed88(try r.u16("hum")))
      case 0x08: reading = .alarm(status: try r.u8("status"))
      case 0x10: reading = .pir(indication: try r.u8("indication"))
      case 0x20: reading = .light(type: try r.u8("type"), reserved: try r.u8("reserved"), lux: try r.u16("lux"))
      case 0x40: reading = .voc(index: try r.u16("voc"), nox: try r.u16("nox"))
      default:
        reading = .co2(ppm: try r.u16("ppm"), celsius: fixed88(try r.u16("temp")), percent: fixed88(try r.u16("hum")))
      }
    } catch { throw .sensorMessageMalformed(error.description) }
  }

  public var bytes: [UInt8] {
    var out: [UInt8] = []
    out.appendBigEndian(utc)
    switch reading {
    case .humidity(let t, let h):
      out.appendBigEndian(fixed88Raw(t))
      out.appendBigEndian(fixed88Raw(h))
    case .alarm(let s): out.append(s)
    case .pir(let i): out.append(i)
    case .light(let type, let reserved, let lux):
      out += [type, reserved]
      out.appendBigEndian(lux)
    case .voc(let v, let n):
      out.appendBigEndian(v)
      out.appendBigEndian(n)
    case .co2(let ppm, let t, let h):
      out.appendBigEndian(ppm)
      out.appendBigEndian(fixed88Raw(t))
      out.appendBigEndian(fixed88Raw(h))
    }
    return out
  }

  /// Whether the time is device-relative (before ≈ 2000-01-01).
  public var isRelative: Bool { utc < Self.relativeTimeLimit }

  /// The record with a relative time moved onto the host clock (`HistoryInfo.clockOffset`).
  public func corrected(offset: Int64) -> SensorRecord {
    guard isRelative else { return self }
    var copy = self
    copy.utc = UInt32(clamping: Int64(utc) + offset)
    return copy
  }
}

/// A record response `02 len[2] srType nextPos[4] records…`, `len` = total length − 3; `nextPos`
/// 0xFFFFFFFF = no more (§9).
public struct HistoryPage: Hashable, Sendable {
  public static let noMore: UInt32 = 0xFFFF_FFFF

  public var sensor: UInt8
  public var nextPosition: UInt32
  public var records: [SensorRecord]

  public init(sensor: UInt8, nextPosition: UInt32, records: [SensorRecord]) {
    self.sensor = sensor
    self.nextPosition = nextPosition
    self.records = records
  }

  public init(bytes: [UInt8]) throws(KBeaconError) {
    var r = FrameReader(bytes)
    do {
      guard try r.u8("opcode") == 0x02 else {
        throw KBeaconError.sensorMessageMalformed("record response must start 02")
      }
      let length = Int(try r.u16("length"))
      guard length == bytes.count - 3 else {
        throw KBeaconError.sensorMessageMalformed("length field \(length), message has \(bytes.count - 3)")
      }
      sensor = try r.u8("type")
      nextPosition = try r.u32("next position")
    } catch let error as KBeaconError {
      if case .malformedFrame(let d) = error { throw .sensorMessageMalformed(d) }
      throw error
    } catch { throw .sensorMessageMalformed("\(error)") }
    guard let size = SensorRecord.size(sensor: sensor) else {
      throw .sensorMessageMalformed("no history layout for sensor \(sensor)")
    }
    let body = r.rest()
    guard body.count % size == 0 else {
      throw .sensorMessageMalformed("\(body.count) record bytes is not a multiple of \(size)")
    }
    var records: [SensorRecord] = []
    for start in stride(from: 0, to: body.count, by: size) {
      records.append(try SensorRecord(sensor: sensor, bytes: body[start..<start + size]))
    }
    self.records = records
  }

  public var bytes: [UInt8] {
    let body = records.flatMap(\.bytes)
    var out: [UInt8] = [0x02]
    out.appendBigEndian(UInt16(clamping: body.count + 5))
    out.append(sensor)
    out.appendBigEndian(nextPosition)
    return out + body
  }
}
