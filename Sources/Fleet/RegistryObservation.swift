import BeaconCore
import Foundation
import Profiles

/// What one sighting (a scan's `DeviceRecord`) or one configuration read says about a device; nil where it
/// says nothing, so merging it (`RegistryDevice.absorb`) keeps what was known.
struct RegistryObservation: Sendable, Hashable {
  var address: String
  var at: Date
  var addressType: String?
  var name: String?
  /// A model string (a read's `model`).
  var model: String?
  /// The KKM System frame's model byte, as `"KKM model N"`: used only while no model string is known.
  var modelCode: String?
  var hardwareVersion: String?
  var firmwareVersion: String?
  var rssi: Int?
  var batteryPercent: Int?
  var batteryMillivolts: Int?
  /// The frame kinds heard (sightings only).
  var frames: [String]?
  /// The beacon identities the frames show (sightings that show one only: a scan of a device's other
  /// frames leaves the known identities alone).
  var identities: [String]?
  var configurationHash: String?

  /// The history point this observation adds, when it carries an RSSI or a battery value.
  var reading: RegistryReading? {
    guard rssi != nil || batteryPercent != nil || batteryMillivolts != nil else { return nil }
    return RegistryReading(at: at, rssi: rssi, batteryPercent: batteryPercent, batteryMillivolts: batteryMillivolts)
  }

  init(address: String, at: Date) {
    self.address = Self.normalised(address)
    self.at = at
  }

  /// A scan's record: name, address type, RSSI, the frames heard, and what the frames tell — battery from
  /// the KKM System frame, else the KKM scan response (percent), from KSensor, else Eddystone TLM
  /// (millivolts); model code and firmware version from the System frame.
  init(sighting record: DeviceRecord, at: Date) {
    self.init(address: record.address.description, at: at)
    addressType = record.addressType.description
    name = record.name
    rssi = record.rssi.latest.map(Int.init)
    frames = record.frames.map(\.kind.rawValue)
    let shown = BeaconIdentity.shown(by: record.frames).map(\.description)
    identities = shown.isEmpty ? nil : shown
    // Percent from the System frame, else the scan response; millivolts from KSensor, else TLM.
    var system: UInt8?
    var response: UInt8?
    var sensor: UInt16?
    var tlm: UInt16?
    for frame in record.frames {
      switch frame {
      case .kkmSystem(let f):
        system = f.batteryPercent
        modelCode = "KKM model \(f.model)"
        firmwareVersion = Self.version(f.firmwareVersion)
      case .kkmScanResponse(let f): response = f.batteryPercent
      case .kSensor(let f): sensor = f.batteryMillivolts
      case .eddystoneTLM(let f): tlm = f.batteryMillivolts
      default: break
      }
    }
    batteryPercent = (system ?? response).map(Int.init)
    batteryMillivolts = (sensor ?? tlm).map(Int.init)
  }

  /// A configuration read over a connection (docs/protocols/kbeacon.md §6.3; v1 spellings of §7 too): `model`
  /// (`modle`), `hver`, `ver`, `name` (`devName`), `btPt`, and the configuration's fingerprint.
  init(read configuration: DeviceConfigView, address: String, at: Date) {
    self.init(address: address, at: at)
    let common = configuration.common
    model = common["model"]?.textValue ?? common["modle"]?.textValue
    hardwareVersion = common["hver"]?.textValue
    firmwareVersion = common["ver"]?.textValue.map(Self.version)
    name = common["name"]?.textValue ?? common["devName"]?.textValue
    batteryPercent = common["btPt"]?.intValue
    configurationHash = ConfigurationFingerprint(configuration).sha256
  }

  /// `"V5.22"` → `"5.22"` (`FirmwareVersion`'s spelling); text that is not a version loses only its "V".
  static func version(_ text: String) -> String {
    if let version = FirmwareVersion(text) { return version.description }
    return text.first == "V" || text.first == "v" ? String(text.dropFirst()) : text
  }

  /// Upper-case without surrounding spaces, the way `BluetoothAddress` prints and the journal stores it.
  static func normalised(_ address: String) -> String {
    address.trimmingCharacters(in: .whitespaces).uppercased()
  }
}
