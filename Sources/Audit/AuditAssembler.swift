import BeaconCore
import Foundation
import Profiles

/// Judges each `AuditSubject`: its status, drift and flags, with what this scan heard taking precedence
/// over what the registry remembers.
///
/// Status, in order: not heard and named → `missing` (not heard and not named is left out: not ours to
/// report); heard, and neither named nor selected by a profile → `unknown` (named by `--inventory` alone:
/// `compliant`, as there is nothing to hold it against); `--connect` read failed → `unreachable`; selected by
/// a text-command profile and not read → `unknown` (nothing on the air to judge it by); any drift
/// (on the air, in the read, or a desired state the profile cannot produce for it) → `drifted`; else
/// `compliant`. Flags: battery under a threshold, firmware older than the catalogue's newest for its model,
/// and the later of its last `apply` and last DFU run ended failed.
public struct AuditAssembler: Sendable {
  public var thresholds: AuditThresholds
  public var air = AirDrift()

  public init(thresholds: AuditThresholds) { self.thresholds = thresholds }

  public func devices(_ subjects: [AuditSubject]) -> [AuditDevice] {
    subjects.compactMap(device).sorted { $0.address < $1.address }
  }

  public func device(_ s: AuditSubject) -> AuditDevice? {
    guard s.sighting != nil || s.named else { return nil }
    let record = s.sighting
    let known = s.known ?? AuditKnown()
    var device = AuditDevice(
      address: s.address, name: record?.name ?? known.name, model: known.model, hardwareVersion: known.hardwareVersion,
      firmwareVersion: known.firmwareVersion ?? record.flatMap(Self.systemFirmware), profile: s.profile,
      tags: s.tags.sorted(), status: .compliant, heard: record != nil,
      lastSeen: record.map { s.scanStarted.addingTimeInterval($0.lastSeen) } ?? known.lastSeen,
      rssi: record?.rssi.latest.map(Int.init) ?? known.rssi, battery: nil,
      frames: record.map { $0.frames.filter { !$0.isMalformed }.map(\.kind.rawValue) } ?? known.frames,
      lastApply: known.lastApply, lastDFU: known.lastDFU, history: known.history, infoManager: s.infoManager)
    let battery = record.map(Self.battery) ?? AuditBattery()
    let merged = AuditBattery(
      percent: battery.percent ?? known.battery.percent, millivolts: battery.millivolts ?? known.battery.millivolts)
    device.battery = merged.isEmpty ? nil : merged
    device.flags = flags(device, newest: s.newestFirmware)
    device.status = status(s, record: record, into: &device)
    return device
  }

  /// Sets `drift` and `error` on the way.
  private func status(_ s: AuditSubject, record: DeviceRecord?, into device: inout AuditDevice) -> AuditStatus {
    guard let record else { return .missing }
    // Named (by `--inventory`) with no profile to judge it by: it is ours and heard, and nothing differs.
    guard let desired = s.desired, s.profile != nil else { return s.named ? .compliant : .unknown }
    switch desired {
    case .failure(let failure):
      device.error = "the profile's desired state cannot be worked out for this device: \(failure)"
      return .drifted
    case .success(let view):
      device.drift = air.drift(desired: view, heard: record)
    }
    switch s.read {
    case .failed(let why)?:
      device.error = why
      return .unreachable
    case .skipped(let why)?:
      device.error = "not read: \(why)"
    case .read(let changes)?:
      device.drift += changes.map {
        AuditDrift(
          scope: $0.scope.description, key: $0.key, expected: Self.text($0.new), actual: $0.old.map(Self.text),
          source: .read)
      }
    case nil where s.judgedOnlyByReading:
      device.error = "its profile's text commands are checked only by connecting (audit --connect)"
      return .unknown
    case nil:
      break
    }
    return device.drift.isEmpty ? .compliant : .drifted
  }

  func flags(_ device: AuditDevice, newest: String?) -> [AuditFlag] {
    var flags: [AuditFlag] = []
    if let battery = device.battery, thresholds.isLow(battery) { flags.append(.lowBattery) }
    if let newest = newest.flatMap(FirmwareVersion.init),
      let have = device.firmwareVersion.flatMap(FirmwareVersion.init), have < newest
    {
      flags.append(.oldFirmware)
    }
    let runs = [device.lastApply, device.lastDFU].compactMap { $0 }
    if let last = runs.max(by: { $0.at < $1.at }), last.failed { flags.append(.lastRunFailed) }
    return flags
  }

  /// A setting value as the report prints it: text unquoted, numbers plain.
  static func text(_ value: SettingValue) -> String { value.textValue ?? value.description }

  /// Battery from the frames: the KKM System frame's percentage, KSensor's or TLM's millivolts.
  static func battery(_ record: DeviceRecord) -> AuditBattery {
    var battery = AuditBattery()
    for frame in record.frames {
      switch frame {
      case .kkmSystem(let f): battery.percent = Int(f.batteryPercent)
      case .kSensor(let f): battery.millivolts = f.batteryMillivolts.map(Int.init) ?? battery.millivolts
      case .eddystoneTLM(let f): battery.millivolts = battery.millivolts ?? f.batteryMillivolts.map(Int.init)
      default: break
      }
    }
    return battery
  }

  /// The firmware version a KKM System frame advertises (`major.minor`).
  static func systemFirmware(_ record: DeviceRecord) -> String? {
    guard case .kkmSystem(let f)? = record.frame(.kkmSystem) else { return nil }
    return f.firmwareVersion
  }
}
