import Foundation

/// Where a device stands in an audit. The order is the report's order of concern.
public enum AuditStatus: String, Sendable, Hashable, Codable, CaseIterable {
  /// Named by an inventory or profile and not heard during the scan.
  case missing
  /// `--connect`: heard, but no configuration could be read (the reason is in `AuditDevice.error`).
  case unreachable
  /// Something it advertises (or, with `--connect`, its configuration) differs from the profile.
  case drifted
  /// Heard, and nothing found that differs from the profile.
  case compliant
  /// Heard, but no inventory or profile names or selects it.
  case unknown

  /// Whether `--detailed-exitcode` turns this status into exit code 2 [I: unreachable counts, since an
  /// operator cannot tell it is compliant; unknown does not, since it is not ours to judge].
  public var needsAttention: Bool { self == .missing || self == .unreachable || self == .drifted }
}

/// A reason to look at a device besides its configuration.
public enum AuditFlag: String, Sendable, Hashable, Codable, CaseIterable {
  /// Battery under the threshold (`AuditThresholds`).
  case lowBattery
  /// Firmware older than the newest the firmware catalogue cache holds for its model.
  case oldFirmware
  /// Its last `apply` or DFU run ended failed.
  case lastRunFailed
}

/// One setting that differs from the profile. `source` says how it was seen: `air` (what the device
/// advertises, no connection) or `read` (its configuration, read over a connection).
public struct AuditDrift: Sendable, Hashable, Codable {
  public enum Source: String, Sendable, Hashable, Codable { case air, read }
  /// `device`, `slot 0`, `trigger 1`, `sensor ht`.
  public var scope: String
  /// The setting's device key (`majorID`) or, for what the air shows, the advertised field (`iBeacon.major`).
  public var key: String
  public var expected: String
  /// nil: absent (a frame the profile wants that was not heard, a key the device does not have).
  public var actual: String?
  public var source: Source

  public init(scope: String, key: String, expected: String, actual: String?, source: Source) {
    self.scope = scope
    self.key = key
    self.expected = expected
    self.actual = actual
    self.source = source
  }
}

/// The battery as last known: percent (KKM System frame, a read) and/or millivolts (KSensor, Eddystone TLM).
public struct AuditBattery: Sendable, Hashable, Codable {
  public var percent: Int?
  public var millivolts: Int?

  public init(percent: Int? = nil, millivolts: Int? = nil) {
    self.percent = percent
    self.millivolts = millivolts
  }

  public var isEmpty: Bool { percent == nil && millivolts == nil }
}

/// One earlier RSSI or battery reading, for the trend.
public struct AuditReading: Sendable, Hashable, Codable {
  public var at: Date
  public var rssi: Int?
  public var battery: AuditBattery

  public init(at: Date, rssi: Int?, battery: AuditBattery) {
    self.at = at
    self.rssi = rssi
    self.battery = battery
  }

  // A reading without a battery value has no `battery` member (it was written as `"battery": {}`).
  enum CodingKeys: String, CodingKey { case at, rssi, battery }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    at = try c.decode(Date.self, forKey: .at)
    rssi = try c.decodeIfPresent(Int.self, forKey: .rssi)
    battery = try c.decodeIfPresent(AuditBattery.self, forKey: .battery) ?? AuditBattery()
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(at, forKey: .at)
    try c.encodeIfPresent(rssi, forKey: .rssi)
    if !battery.isEmpty { try c.encode(battery, forKey: .battery) }
  }
}

/// The device's last `apply` or DFU run in the journal.
public struct AuditRunLink: Sendable, Hashable, Codable {
  public var run: String
  public var kind: String
  /// The journal's device state: `verified`, `compliant`, `failed`, …
  public var outcome: String
  public var detail: String?
  public var at: Date

  public init(run: String, kind: String, outcome: String, detail: String?, at: Date) {
    self.run = run
    self.kind = kind
    self.outcome = outcome
    self.detail = detail
    self.at = at
  }

  public var failed: Bool { outcome == "failed" }
}

/// One row of the report: everything known about a device, its status and why.
public struct AuditDevice: Sendable, Hashable, Codable {
  public var address: String
  public var name: String?
  public var model: String?
  public var hardwareVersion: String?
  public var firmwareVersion: String?
  /// The profile file that selects it; nil for an unknown device.
  public var profile: String?
  /// Inventory tags (places or groups), sorted.
  public var tags: [String]
  public var status: AuditStatus
  /// Heard in this audit's scan.
  public var heard: Bool
  /// When it was last heard: in this scan, else as the registry remembers.
  public var lastSeen: Date?
  public var rssi: Int?
  public var battery: AuditBattery?
  /// The frame kinds it advertises (this scan's, else the registry's), sorted.
  public var frames: [String]
  public var drift: [AuditDrift]
  public var flags: [AuditFlag]
  /// Why it is unreachable, or why its desired state could not be worked out.
  public var error: String?
  public var lastApply: AuditRunLink?
  public var lastDFU: AuditRunLink?
  /// Earlier readings, oldest first (the registry's short history).
  public var history: [AuditReading]
  /// A blukii module's standing in the Info Manager, when resolve is configured.
  public var infoManager: AuditInfoManager?

  public init(
    address: String, name: String? = nil, model: String? = nil, hardwareVersion: String? = nil,
    firmwareVersion: String? = nil, profile: String? = nil, tags: [String] = [], status: AuditStatus, heard: Bool,
    lastSeen: Date? = nil, rssi: Int? = nil, battery: AuditBattery? = nil, frames: [String] = [],
    drift: [AuditDrift] = [], flags: [AuditFlag] = [], error: String? = nil, lastApply: AuditRunLink? = nil,
    lastDFU: AuditRunLink? = nil, history: [AuditReading] = [], infoManager: AuditInfoManager? = nil
  ) {
    self.infoManager = infoManager
    self.address = address
    self.name = name
    self.model = model
    self.hardwareVersion = hardwareVersion
    self.firmwareVersion = firmwareVersion
    self.profile = profile
    self.tags = tags
    self.status = status
    self.heard = heard
    self.lastSeen = lastSeen
    self.rssi = rssi
    self.battery = battery
    self.frames = frames
    self.drift = drift
    self.flags = flags
    self.error = error
    self.lastApply = lastApply
    self.lastDFU = lastDFU
    self.history = history
  }
}
