import Foundation

/// One device as the fleet registry knows it: every device ever heard (a scan) or touched (a configuration
/// read), merged over time. A value a sighting or read does not carry is kept from before — a scan without a
/// battery frame leaves the known battery alone. Passwords never enter it (`ConfigurationFingerprint`).
public struct RegistryDevice: Sendable, Hashable, Codable {
  /// Upper-case, as `BluetoothAddress` prints it: `"DD:34:02:06:D1:01"`.
  public var address: String
  /// `"public"` or `"random"`, as the latest scan heard it.
  public var addressType: String?
  /// The advertised name (latest scan), or the configured `name` / `devName` (latest read).
  public var name: String?
  /// The `model` key of a read (`modle` on v1 devices); until a read, `"KKM model N"` from the model byte of
  /// the KKM System frame (a code, not the model string), which a read then replaces.
  public var model: String?
  /// The `hver` key of a read.
  public var hardwareVersion: String?
  /// Without a leading "V" (`"5.22"`): the `ver` key of a read, or the KKM System frame's version.
  public var firmwareVersion: String?
  public var firstSeen: Date
  /// The latest sighting or read.
  public var lastSeen: Date
  /// dBm, the latest report of the latest scan that had one.
  public var lastRSSI: Int?
  /// From the KKM System frame, the KKM scan response (0x2080) or a read's `btPt`.
  public var batteryPercent: Int?
  /// From the KSensor or the Eddystone TLM frame.
  public var batteryMillivolts: Int?
  /// The frame kinds the latest scan heard (`FrameKind` raw values: `"iBeacon"`, `"kkmSystem"`, …), in
  /// `FrameKind` order — the order `scan` lists them.
  public var frames: [String]
  /// The beacon identities the latest scan that heard one showed at this address (`BeaconIdentity`'s
  /// canonical text: `ibeacon:UUID:MAJOR:MINOR`, `eddystone:NAMESPACE:INSTANCE`), so a monitor whose
  /// inventory names a beacon by identity can find when any gateway last heard it; nil when none was heard.
  public var identities: [String]?
  /// SHA-256 (lower-case hex) of the latest configuration read (`ConfigurationFingerprint`).
  public var configurationHash: String?
  public var configurationReadAt: Date?
  /// The latest `apply` run that holds this address (from the journal's tables, not stored here).
  public var lastApply: RegistryRunLink?
  /// The latest `dfu` run that holds this address (from the journal's tables, not stored here).
  public var lastDFU: RegistryRunLink?

  public init(
    address: String, addressType: String? = nil, name: String? = nil, model: String? = nil,
    hardwareVersion: String? = nil, firmwareVersion: String? = nil, firstSeen: Date, lastSeen: Date,
    lastRSSI: Int? = nil, batteryPercent: Int? = nil, batteryMillivolts: Int? = nil, frames: [String] = [],
    identities: [String]? = nil, configurationHash: String? = nil, configurationReadAt: Date? = nil,
    lastApply: RegistryRunLink? = nil,
    lastDFU: RegistryRunLink? = nil
  ) {
    self.address = address
    self.addressType = addressType
    self.name = name
    self.model = model
    self.hardwareVersion = hardwareVersion
    self.firmwareVersion = firmwareVersion
    self.firstSeen = firstSeen
    self.lastSeen = lastSeen
    self.lastRSSI = lastRSSI
    self.batteryPercent = batteryPercent
    self.batteryMillivolts = batteryMillivolts
    self.frames = frames
    self.identities = identities
    self.configurationHash = configurationHash
    self.configurationReadAt = configurationReadAt
    self.lastApply = lastApply
    self.lastDFU = lastDFU
  }

  /// A device first known through `observation`.
  init(first observation: RegistryObservation) {
    self.init(address: observation.address, firstSeen: observation.at, lastSeen: observation.at)
    absorb(observation)
  }

  /// Folds a newer sighting or read in: what it says replaces what was known, what it leaves out stays.
  /// A model from the System frame's code only fills a gap (a read's model string is better).
  mutating func absorb(_ o: RegistryObservation) {
    firstSeen = min(firstSeen, o.at)
    lastSeen = max(lastSeen, o.at)
    addressType = o.addressType ?? addressType
    name = o.name ?? name
    if let m = o.model { model = m } else if model == nil { model = o.modelCode }
    hardwareVersion = o.hardwareVersion ?? hardwareVersion
    firmwareVersion = o.firmwareVersion ?? firmwareVersion
    lastRSSI = o.rssi ?? lastRSSI
    batteryPercent = o.batteryPercent ?? batteryPercent
    batteryMillivolts = o.batteryMillivolts ?? batteryMillivolts
    frames = o.frames ?? frames
    identities = o.identities ?? identities
    if let hash = o.configurationHash {
      configurationHash = hash
      configurationReadAt = o.at
    }
  }
}

/// A journal run a registry device took part in: which run, its kind, how the device ended in it.
public struct RegistryRunLink: Sendable, Hashable, Codable {
  /// The run id (`Journal.createRun`).
  public var run: String
  /// `"apply"` or `"dfu"`.
  public var kind: String
  /// The device's `DeviceState` raw value in that run (`"verified"`, `"failed"`, `"pending"`, …).
  public var outcome: String
  /// The journal's detail (a failure's reason), if any.
  public var detail: String?
  /// When the device's row was last updated in that run.
  public var at: Date

  public init(run: String, kind: String, outcome: String, detail: String? = nil, at: Date) {
    self.run = run
    self.kind = kind
    self.outcome = outcome
    self.detail = detail
    self.at = at
  }
}

/// One point of a device's RSSI and battery history (a sighting or read that carried either).
public struct RegistryReading: Sendable, Hashable, Codable {
  public var at: Date
  public var rssi: Int?
  public var batteryPercent: Int?
  public var batteryMillivolts: Int?

  public init(at: Date, rssi: Int? = nil, batteryPercent: Int? = nil, batteryMillivolts: Int? = nil) {
    self.at = at
    self.rssi = rssi
    self.batteryPercent = batteryPercent
    self.batteryMillivolts = batteryMillivolts
  }
}
