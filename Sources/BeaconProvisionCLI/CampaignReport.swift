import BeaconCore
import CampaignPipeline
import Fleet
import Foundation
import Profiles
import Synchronization

/// The end-of-run table and its JSON form.
enum CampaignReport {
  /// The line a campaign starts with: "1 device selected", "5 devices selected, 2 named but not seen".
  static func selected(_ count: Int, notSeen: Int) -> String {
    "\(count) device\(count == 1 ? "" : "s") selected" + (notSeen == 0 ? "" : ", \(notSeen) named but not seen")
  }

  static func describe(_ outcome: DeviceOutcome) -> String {
    switch outcome {
    case .compliant: "compliant, nothing written"
    case .planned(let c): "\(c.count) change\(c.count == 1 ? "" : "s") planned"
    case .updated(let c) where !c.isEmpty && c.allSatisfy(\.isCommand):
      "sent \(c.count) command\(c.count == 1 ? "" : "s"), verified"
    case .updated(let c): "updated \(c.count) key\(c.count == 1 ? "" : "s"), verified"
    case .skipped(let reason): "skipped: \(reason)"
    case .failed(let reason, _): "FAILED: \(reason)"
    case .pending: "pending (resume the run)"
    }
  }

  /// terraform-style: per device, its result and each change `~ scope key: old -> new`.
  static func table(_ result: CampaignResult, explain: Bool = false) -> String {
    var lines: [String] = []
    for (address, outcome) in result.summary.outcomes.sorted(by: { $0.key < $1.key }) {
      lines.append("\(address)  \(describe(outcome))")
      if case .planned(let changes) = outcome { lines += changes.map { "    ~ \($0)" } }
      if case .updated(let changes) = outcome { lines += changes.map { "    ~ \($0)" } }
    }
    for address in result.notSeen { lines.append("\(address)  not seen in the scan") }
    if explain {
      for n in result.notSelected {
        lines.append("\(n.address)  not selected: \(n.reason)" + (n.name.map { " (name '\($0)')" } ?? ""))
      }
    }
    let s = result.summary
    lines.append("")
    let counts: [(DeviceState, String)] = [
      (.verified, "updated"), (.planned, "with changes"), (.compliant, "compliant"), (.skipped, "skipped"),
      (.failed, "failed"),
      (.pending, "pending"),
    ]
    let parts = counts.map { (s.count($0.0), $0.1) }.filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
    lines.append("run \(s.run): " + (parts.isEmpty ? "no devices" : parts.joined(separator: ", ")))
    if parts.isEmpty, !result.notSelected.isEmpty, !explain {
      lines.append(
        "\(result.notSelected.count) device\(result.notSelected.count == 1 ? "" : "s") heard but not selected: plan --explain says why"
      )
    }
    if s.interrupted { lines.append("interrupted: finish with  \(ResumeRun.command(result.finish, run: s.run))") }
    // What devices answered (a name, a failure's text) is shown with its control characters escaped.
    return lines.map(\.terminalSafe).joined(separator: "\n")
  }

  struct DeviceJSON: Encodable {
    var address: String
    var result: String
    var detail: String?
    var changes: [ChangeJSON]?
  }

  /// One change with its values as JSON values — a number as a number, text as a string — as the device holds
  /// them (`jq '.devices[].changes[] | select(.new > 1000)'`); before, each was a string of JSON text.
  struct ChangeJSON: Encodable {
    var scope: String, key: String, old: SettingValue?, new: SettingValue

    enum CodingKeys: String, CodingKey { case scope, key, old, new }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(scope, forKey: .scope)
      try container.encode(key, forKey: .key)
      try Self.encode(old, .old, in: &container)
      try Self.encode(new, .new, in: &container)
    }

    static func encode(
      _ value: SettingValue?, _ key: CodingKeys, in container: inout KeyedEncodingContainer<CodingKeys>
    )
      throws
    {
      switch value {
      case nil: try container.encodeNil(forKey: key)
      case .integer(let i): try container.encode(i, forKey: key)
      // A number JSON cannot hold (a device's `1e400` reads as infinity) as its text, not a failed report.
      case .number(let d) where !d.isFinite: try container.encode(d.description, forKey: key)
      case .number(let d): try container.encode(d, forKey: key)
      case .text(let t): try container.encode(t, forKey: key)
      }
    }
  }

  struct RunJSON: Encodable {
    var run: String
    var interrupted: Bool
    var devices: [DeviceJSON]
    var notSeen: [String]
    var notSelected: [TargetSelection.NotSelected]
  }

  static func json(_ result: CampaignResult) throws -> String {
    let devices = result.summary.outcomes.sorted { $0.key < $1.key }.map { address, outcome -> DeviceJSON in
      func changes(_ c: [ConfigChange]) -> [ChangeJSON] {
        c.map {
          ChangeJSON(scope: $0.scope.description, key: $0.key, old: $0.old, new: $0.new)
        }
      }
      switch outcome {
      case .compliant: return DeviceJSON(address: address, result: "compliant")
      case .planned(let c): return DeviceJSON(address: address, result: "planned", changes: changes(c))
      case .updated(let c): return DeviceJSON(address: address, result: "updated", changes: changes(c))
      case .skipped(let r): return DeviceJSON(address: address, result: "skipped", detail: r)
      case .failed(let r, let k): return DeviceJSON(address: address, result: "failed", detail: "\(k.rawValue): \(r)")
      case .pending: return DeviceJSON(address: address, result: "pending")
      }
    }
    return try JSONOutput.string(
      RunJSON(
        run: result.summary.run, interrupted: result.summary.interrupted, devices: devices, notSeen: result.notSeen,
        notSelected: result.notSelected))
  }
}
