import BeaconCore
import Foundation

/// One sighting of a device, the monitor's input: what a discovery window heard of it and when. Pure value;
/// the time is given, never read from a clock.
public struct PresenceSighting: Sendable, Hashable {
  /// Upper-case `AA:BB:CC:DD:EE:FF`.
  public var address: String
  public var name: String?
  public var at: Date
  /// The latest RSSI in dBm (nil when the controller gave none).
  public var rssi: Int?
  /// The RSSI the device says it is received with at 1 m (`ProximityClassifier`).
  public var measuredPower: Int?
  public var batteryPercent: Int?
  public var batteryMillivolts: Int?
  /// The firmware version the KKM System frame advertises, e.g. `"5.12"`.
  public var firmware: String?
  /// The beacon identities its frames show (`BeaconIdentity`'s canonical text), in frame order: a device
  /// the inventory or an event names by one of them is tracked under it, whatever its address.
  public var identities: [String]

  public init(
    address: String, name: String? = nil, at: Date, rssi: Int?, measuredPower: Int? = nil, batteryPercent: Int? = nil,
    batteryMillivolts: Int? = nil, firmware: String? = nil, identities: [String] = []
  ) {
    self.address = address.uppercased()
    self.name = name
    self.at = at
    self.rssi = rssi
    self.measuredPower = measuredPower
    self.batteryPercent = batteryPercent
    self.batteryMillivolts = batteryMillivolts
    self.firmware = firmware
    self.identities = identities.map { BeaconIdentity($0)?.description ?? $0 }
  }

  /// A discovery window's record of a device: RSSI, measured power (iBeacon; Eddystone UID/URL Tx power at
  /// 0 m − 41 dB), battery (percent from the KKM System frame, else the 0x2080 scan response; millivolts from
  /// KSensor, else TLM — as the fleet registry reads them), the System frame's firmware version and the
  /// identities of its iBeacon and Eddystone-UID frames (read only with `identities`: an engine that names
  /// none does not pay for their text at every window of every device).
  public init(record: DeviceRecord, at: Date, identities: Bool = true) {
    var measured: Int?
    var percent: Int?
    var response: Int?
    var millivolts: Int?
    var tlm: Int?
    var firmware: String?
    for frame in record.frames {
      switch frame {
      case .iBeacon(let f): measured = Int(f.measuredPower)
      case .eddystoneUID(let f): measured = measured ?? Int(f.txPowerAt0m) - 41
      case .eddystoneURL(let f): measured = measured ?? Int(f.txPowerAt0m) - 41
      case .kkmSystem(let f):
        percent = Int(f.batteryPercent)
        firmware = f.firmwareVersion
      case .kkmScanResponse(let f): response = f.batteryPercent.map(Int.init)
      case .kSensor(let f): millivolts = f.batteryMillivolts.map(Int.init)
      case .eddystoneTLM(let f): tlm = f.batteryMillivolts.map(Int.init)
      default: break
      }
    }
    self.init(
      address: record.address.description, name: record.name, at: at, rssi: record.rssi.latest.map(Int.init),
      measuredPower: measured, batteryPercent: percent ?? response, batteryMillivolts: millivolts ?? tlm,
      firmware: firmware, identities: identities ? BeaconIdentity.shown(by: record.frames).map(\.description) : [])
  }
}
