/// KKM KSensor frame 0x21 (docs/protocols/kbeacon.md §10.3), carried as Eddystone service data (`AA FE 21 …`) or
/// as KKM manufacturer data (`53 0A 21 …`): `[21][mask_hi][mask_lo][fields in mask-bit order]`, all
/// big-endian. v1 firmware sends byte 1 as a version (1) and byte 2 as an 8-bit mask; reading 16 bits is
/// compatible because bit 0x100 carries no field. Mask bits above 0x400 have no known layout: the fields
/// before them decode and the remaining bytes are kept in `unparsed` [I].
///
/// Extended temperature (v2 Android SDK): when the humidity field is negative it is not a humidity but
/// extends the temperature: `temperature = (−1 − humidity)·100 + temperature`, and humidity is absent. The
/// iOS SDK truncates humidity to an integer first; we follow Android (spec text) [I].
public struct KSensorFrame: Sendable, Hashable, Codable {
  /// Which fields are present (the mask as sent, including bits without a field).
  public var mask: UInt16
  public var batteryMillivolts: UInt16?
  /// °C (signed 8.8, possibly extended, see above).
  public var temperature: Double?
  /// % relative humidity (8.8).
  public var humidity: Double?
  /// True when the humidity field carried the temperature extension.
  public var extendedTemperature: Bool
  /// Acceleration in mg [I] per axis.
  public var acceleration: Acceleration?
  /// Alarm / cut-off state (0x0010).
  public var alarm: UInt8?
  /// PIR indication (0x0020).
  public var pir: UInt8?
  /// Illuminance in lux (0x0040).
  public var lux: UInt16?
  /// VOC sensor reading (0x0080).
  public var voc: VOCReading?
  /// CO2 reading (0x0200).
  public var co2: CO2Reading?
  /// Stored history records (0x0400).
  public var records: RecordCount?
  /// Bytes after the last decoded field when the mask has bits of unknown layout.
  public var unparsed: RawBytes?

  public struct Acceleration: Sendable, Hashable, Codable {
    public var x: Int16
    public var y: Int16
    public var z: Int16
    public init(x: Int16, y: Int16, z: Int16) {
      self.x = x
      self.y = y
      self.z = z
    }
  }

  public struct VOCReading: Sendable, Hashable, Codable {
    /// Age of the reading in 10 s units.
    public var ageTens: UInt8
    public var voc: UInt16
    public var nox: UInt16
    public init(ageTens: UInt8, voc: UInt16, nox: UInt16) {
      self.ageTens = ageTens
      self.voc = voc
      self.nox = nox
    }
  }

  public struct CO2Reading: Sendable, Hashable, Codable {
    /// Age of the reading in 10 s units.
    public var ageTens: UInt8
    public var ppm: UInt16
    public init(ageTens: UInt8, ppm: UInt16) {
      self.ageTens = ageTens
      self.ppm = ppm
    }
  }

  public struct RecordCount: Sendable, Hashable, Codable {
    /// bit 0: the humidity/temperature count is valid.
    public var flags: UInt8
    public var count: UInt16
    public init(flags: UInt8, count: UInt16) {
      self.flags = flags
      self.count = count
    }
  }

  /// Mask bits and their field sizes, in wire order.
  public enum Field {
    public static let battery: UInt16 = 0x0001
    public static let temperature: UInt16 = 0x0002
    public static let humidity: UInt16 = 0x0004
    public static let acceleration: UInt16 = 0x0008
    public static let alarm: UInt16 = 0x0010
    public static let pir: UInt16 = 0x0020
    public static let lux: UInt16 = 0x0040
    public static let voc: UInt16 = 0x0080
    public static let co2: UInt16 = 0x0200
    public static let records: UInt16 = 0x0400
    /// Bits with a known layout, plus 0x0100 which carries none.
    static let known: UInt16 = 0x07FF
  }

  public init(
    mask: UInt16 = 0, batteryMillivolts: UInt16? = nil, temperature: Double? = nil, humidity: Double? = nil,
    acceleration: Acceleration? = nil, alarm: UInt8? = nil, pir: UInt8? = nil, lux: UInt16? = nil,
    voc: VOCReading? = nil, co2: CO2Reading? = nil, records: RecordCount? = nil
  ) {
    self.mask = mask
    self.batteryMillivolts = batteryMillivolts
    self.temperature = temperature
    self.humidity = humidity
    self.extendedTemperature = false
    self.acceleration = acceleration
    self.alarm = alarm
    self.pir = pir
    self.lux = lux
    self.voc = voc
    self.co2 = co2
    self.records = records
    self.unparsed = nil
  }
}
