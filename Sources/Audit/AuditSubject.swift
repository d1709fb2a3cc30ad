import BeaconCore
import Foundation
import Profiles

/// What the audit command gathered about one device before judging it: who names it, what its profile
/// wants, what this scan heard, what the registry remembers and, with `--connect`, what reading it found.
/// `AuditAssembler` turns it into an `AuditDevice`; nothing here does I/O.
public struct AuditSubject: Sendable {
  public var address: String
  /// The profile file that selects it; nil: no profile does.
  public var profile: String?
  /// Named by an inventory or `select.addresses` (or remembered as selected): not hearing it makes it missing.
  public var named: Bool
  public var tags: [String]
  /// The configuration its profile wants (device keys), or why it cannot be worked out for this device.
  public var desired: Result<DeviceConfigView, DesiredResolver.Failure>?
  /// This scan's record of it.
  public var sighting: DeviceRecord?
  /// When the scan started: a record's seconds count from here.
  public var scanStarted: Date
  public var known: AuditKnown?
  public var read: AuditReadOutcome?
  /// The newest firmware the catalogue cache holds for its model, if any.
  public var newestFirmware: String?
  /// Its profile holds text commands: nothing on the air tells whether their answers are as
  /// expected, so without a read (`--connect`) the device is `unknown`, never `compliant`.
  public var judgedOnlyByReading = false
  /// A blukii module's standing in the Info Manager, when resolve is configured.
  public var infoManager: AuditInfoManager?

  public init(
    address: String, profile: String?, named: Bool, tags: [String],
    desired: Result<DeviceConfigView, DesiredResolver.Failure>?,
    sighting: DeviceRecord?, scanStarted: Date, known: AuditKnown? = nil, read: AuditReadOutcome? = nil,
    newestFirmware: String? = nil
  ) {
    self.address = address
    self.profile = profile
    self.named = named
    self.tags = tags
    self.desired = desired
    self.sighting = sighting
    self.scanStarted = scanStarted
    self.known = known
    self.read = read
    self.newestFirmware = newestFirmware
  }
}

/// What the fleet registry remembers of a device (from earlier scans, reads and runs).
public struct AuditKnown: Sendable, Hashable {
  public var name: String?
  public var model: String?
  public var hardwareVersion: String?
  public var firmwareVersion: String?
  public var lastSeen: Date?
  public var rssi: Int?
  public var battery: AuditBattery
  public var frames: [String]
  public var lastApply: AuditRunLink?
  public var lastDFU: AuditRunLink?
  public var history: [AuditReading]

  public init(
    name: String? = nil, model: String? = nil, hardwareVersion: String? = nil, firmwareVersion: String? = nil,
    lastSeen: Date? = nil, rssi: Int? = nil, battery: AuditBattery = AuditBattery(), frames: [String] = [],
    lastApply: AuditRunLink? = nil, lastDFU: AuditRunLink? = nil, history: [AuditReading] = []
  ) {
    self.name = name
    self.model = model
    self.hardwareVersion = hardwareVersion
    self.firmwareVersion = firmwareVersion
    self.lastSeen = lastSeen
    self.rssi = rssi
    self.battery = battery
    self.frames = frames
    self.lastApply = lastApply
    self.lastDFU = lastDFU
    self.history = history
  }
}

/// `--connect`: what reading the device (the `plan` path, never a write) found.
public enum AuditReadOutcome: Sendable, Hashable {
  /// Read back; these keys differ from the profile (empty: none).
  case read([ConfigChange])
  /// The profile does not apply to it after all (model, firmware, device limits); why.
  case skipped(String)
  /// No configuration could be read; why.
  case failed(String)
}
