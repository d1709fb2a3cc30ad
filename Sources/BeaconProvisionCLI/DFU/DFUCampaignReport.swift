import CampaignPipeline
import Fleet
import Foundation
import Profiles

/// The end of a `dfu update` run: per device its outcome, and for the updated ones which version they
/// went from and to, seconds and bytes/s, where the bootloader answered and the name it was found by; then
/// the counts. Also as JSON.
enum DFUCampaignReport {
  /// A finished device as the progress lines tell it: a firmware campaign's update is one version change.
  static func describe(_ outcome: DeviceOutcome) -> String {
    guard case .updated(let changes) = outcome, let version = changes.first(where: { $0.key == "ver" }) else {
      return CampaignReport.describe(outcome)
    }
    func text(_ value: SettingValue?) -> String { value.map { $0.textValue ?? $0.description } ?? "?" }
    return "updated firmware \(text(version.old)) -> \(text(version.new)), verified"
  }

  static func table(_ result: CampaignResult) -> String {
    var lines = ["DEVICE             RESULT"]
    for (address, outcome) in result.summary.outcomes.sorted(by: { $0.key < $1.key }) {
      if case .updated = outcome, let r = result.reports[address] {
        lines.append(
          "\(address)  updated \(r.from?.description ?? "?") → \(r.to)  \(r.bytes) bytes"
            + (r.imageBytes.map { " of \($0) (the rest already on the device)" } ?? "")
            + " in "
            + String(format: "%.1f s, %.0f B/s", r.seconds, r.bytesPerSecond)
            + (r.transfer.bootloader.map {
              " (bootloader" + (r.transfer.bootloaderName.map { " \($0)" } ?? "") + " at \($0)"
                + (r.transfer.bootloaderType.map { " \($0)" } ?? "") + ")"
            } ?? "")
            + (r.packageSHA256.map { ", package sha256 \($0)" } ?? ""))
      } else {
        lines.append("\(address)  \(CampaignReport.describe(outcome))")
      }
    }
    for address in result.notSeen { lines.append("\(address)  not seen in the scan") }
    let s = result.summary
    lines.append("")
    for p in result.packages { lines.append("package \(p.version) \(p.url) sha256 \(p.sha256)") }
    lines.append(
      "run \(s.run): \(s.count(.verified)) updated" + (result.version.map { " to \($0)" } ?? "")
        + ", \(s.count(.skipped)) skipped, "
        + "\(s.count(.failed)) failed, \(s.count(.pending)) pending")
    if let rollout = result.rollout {
      for wave in rollout.waves {
        lines.append(
          "rollout \(wave.name): \(wave.failures) of \(wave.devices) failed"
            + (wave.overThreshold ? ", over --max-failures \(rollout.plan.maxFailures)%" : ""))
      }
      if let reason = rollout.stopReason { lines.append(reason) }
    }
    if s.interrupted {
      lines.append("interrupted: finish with  \(ResumeRun.command(result.finish, run: s.run))")
    }
    return lines.joined(separator: "\n")
  }

  struct DeviceJSON: Encodable {
    var address: String
    var result: String
    var detail: String?
    var from: String?
    var to: String?
    /// Firmware bytes this run's visit delivered; `imageBytes`, the images' size, only when that differs (a
    /// resume sends what the bootloader lacked).
    var bytes: Int?
    var imageBytes: Int?
    var seconds: Double?
    var bytesPerSecond: Double?
    /// SHA-256 of the package installed, when known (catalogue campaigns).
    var packageSHA256: String?
    /// Where the bootloader answered (docs/protocols/nordic-dfu.md §2.2) and its address type.
    var bootloader: String?
    var bootloaderAddressType: String?
    /// The name it was told to advertise and was found by; absent when it could not be named (SDK 13).
    var bootloaderName: String?
  }

  struct RunJSON: Encodable {
    var run: String
    /// The `--package` campaign's version (absent for a catalogue campaign: see `packages`).
    var version: String?
    var packages: [ResolvedPackage]
    var interrupted: Bool
    var devices: [DeviceJSON]
    var notSeen: [String]
    /// A staged rollout (`--rollout`): its plan, each wave that ran, and why it stopped; absent otherwise.
    var rollout: RolloutJSON?
  }

  struct RolloutJSON: Encodable {
    struct Wave: Encodable {
      var name: String
      var devices: Int
      var failures: Int
      var overThreshold: Bool
    }
    var plan: String
    var waves: [Wave]
    var stopped: Bool
    var reason: String?

    init(_ r: RolloutResult) {
      plan = r.plan.text
      waves = r.waves.map {
        Wave(name: $0.name, devices: $0.devices, failures: $0.failures, overThreshold: $0.overThreshold)
      }
      (stopped, reason) = (r.stopped, r.stopReason)
    }
  }

  static func json(_ result: CampaignResult) throws -> String {
    let devices = result.summary.outcomes.sorted { $0.key < $1.key }.map { address, outcome -> DeviceJSON in
      switch outcome {
      case .updated:
        let r = result.reports[address]
        return DeviceJSON(
          address: address, result: "updated", from: r?.from?.description, to: r?.to.description,
          bytes: r?.bytes, imageBytes: r?.imageBytes, seconds: r?.seconds, bytesPerSecond: r?.bytesPerSecond,
          packageSHA256: r?.packageSHA256,
          bootloader: r?.transfer.bootloader?.description,
          bootloaderAddressType: r?.transfer.bootloaderType?.description,
          bootloaderName: r?.transfer.bootloaderName)
      case .skipped(let reason): return DeviceJSON(address: address, result: "skipped", detail: reason)
      case .failed(let reason, let kind):
        return DeviceJSON(address: address, result: "failed", detail: "\(kind.rawValue): \(reason)")
      case .pending: return DeviceJSON(address: address, result: "pending")
      case .compliant, .planned: return DeviceJSON(address: address, result: "\(outcome.state)")
      }
    }
    return try JSONOutput.string(
      RunJSON(
        run: result.summary.run, version: result.version?.description, packages: result.packages,
        interrupted: result.summary.interrupted, devices: devices, notSeen: result.notSeen,
        rollout: result.rollout.map(RolloutJSON.init)))
  }
}
