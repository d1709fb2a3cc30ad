import Foundation

/// A fleet audit: what every device really is, where it drifts from its profile, what is missing. The one
/// value every renderer (`AuditJSON`, `AuditCSV`, `AuditMarkdown`, `AuditHTML`) draws from, so the numbers
/// agree in every format. Its JSON form is the documented schema (`schema` names its version).
public struct AuditReport: Sendable, Hashable, Codable {
  /// The JSON schema's name and version; bumped when a key changes meaning or goes away.
  public static let schemaName = "beacon-provision/audit/v1"

  public var schema: String
  public var generatedAt: Date
  /// `passive` (advertisements only) or `connect` (each device's configuration read too).
  public var mode: AuditMode
  public var adapter: String
  public var profiles: [String]
  public var inventory: String?
  public var scanSeconds: Double
  public var thresholds: AuditThresholds
  public var summary: AuditSummary
  /// Sorted by address.
  public var devices: [AuditDevice]
  /// The blukii Info Manager asked about blukii modules (its root URL, no secrets); nil when resolve is not
  /// configured, and then no device has `infoManager` and the renderers show no such column.
  public var infoManager: String?
  /// True when the unmanaged devices' rows were left out (`hidingUnmanaged()`); absent otherwise.
  public var unmanagedHidden: Bool?

  public init(
    generatedAt: Date, mode: AuditMode, adapter: String, profiles: [String], inventory: String?, scanSeconds: Double,
    thresholds: AuditThresholds, devices: [AuditDevice], infoManager: String? = nil
  ) {
    self.infoManager = infoManager
    schema = Self.schemaName
    self.generatedAt = generatedAt
    self.mode = mode
    self.adapter = adapter
    self.profiles = profiles
    self.inventory = inventory
    self.scanSeconds = scanSeconds
    self.thresholds = thresholds
    self.devices = devices.sorted { $0.address < $1.address }
    summary = AuditSummary(self.devices)
  }

  /// The same report without the unmanaged (`unknown`) rows (`audit --hide-unmanaged`); the summary still
  /// counts them, so every format says how many were heard and left out.
  public func hidingUnmanaged() -> AuditReport {
    var hidden = self
    hidden.devices = devices.filter { $0.status != .unknown }
    hidden.unmanagedHidden = true
    return hidden
  }

  /// Whether `--detailed-exitcode` exits 2: a device drifted, is missing or is unreachable.
  public var needsAttention: Bool { devices.contains { $0.status.needsAttention } }
}

public enum AuditMode: String, Sendable, Hashable, Codable {
  case passive, connect
}

/// The limits a device is flagged against.
public struct AuditThresholds: Sendable, Hashable, Codable {
  /// Below this percentage (KKM System frame, a read) the battery is low.
  public var batteryPercent: Int
  /// Below this voltage (KSensor, Eddystone TLM) the battery is low [I: 2500 mV, where a CR2032 cell has
  /// about a tenth of its capacity left].
  public var batteryMillivolts: Int
  /// The newest firmware the catalogue cache holds, by model (`KBPro`, …); empty when there is no cache.
  public var newestFirmware: [String: String]

  public init(batteryPercent: Int = 20, batteryMillivolts: Int = 2500, newestFirmware: [String: String] = [:]) {
    self.batteryPercent = batteryPercent
    self.batteryMillivolts = batteryMillivolts
    self.newestFirmware = newestFirmware
  }

  /// Whether this battery reading is under a threshold (either one, when both are known).
  public func isLow(_ battery: AuditBattery) -> Bool {
    if let p = battery.percent, p < batteryPercent { return true }
    if let mv = battery.millivolts, mv < batteryMillivolts { return true }
    return false
  }
}
