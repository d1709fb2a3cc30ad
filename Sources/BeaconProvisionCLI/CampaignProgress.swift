import BeaconCore
import CampaignPipeline
import Fleet
import Foundation
import Profiles
import Synchronization

/// Progress of a campaign on standard error: on a terminal, a block redrawn in place (counts, then one line
/// per link in flight with its step); otherwise retries, the link limit and the counts at every tenth of
/// the devices — not each finished device, which the summary on standard output (or `--json`) lists, so
/// a log shows every device once.
final class CampaignProgress: Sendable {
  struct State {
    var done = 0, failed = 0, working: [String: String] = [:], lastHeight = 0
    /// Links in flight and the limit, as last reported.
    var links: (inUse: Int, limit: Int)?
  }

  let isTerminal: Bool
  let json: Bool
  let state = Mutex(State())
  /// How a finished device's outcome reads (a firmware campaign says versions, not keys).
  let describe: @Sendable (DeviceOutcome) -> String

  init(
    json: Bool, describe: @escaping @Sendable (DeviceOutcome) -> String = CampaignReport.describe,
    isTerminal: Bool = isatty(STDERR_FILENO) == 1
  ) {
    self.json = json
    self.describe = describe
    self.isTerminal = isTerminal
  }

  func note(_ line: String) { FileHandleOutput.standardError(line) }

  func show(_ event: CampaignEvent, total: Int) {
    if let text = text(for: event, total: total) { FileHandleOutput.standardError(text) }
  }

  /// What `show` writes for this event, if anything.
  func text(for event: CampaignEvent, total: Int) -> String? {
    state.withLock { s in
      switch event {
      case .step(let address, let step, let attempt):
        s.working[address] = step.rawValue + (attempt > 1 ? " (attempt \(attempt))" : "")
        guard isTerminal else { return nil }
      case .retrying(let address, let attempt, let after, let reason):
        s.working[address] = "waiting \(after) before attempt \(attempt): \(reason)"
        guard isTerminal else { return "\(address)  retry \(attempt) in \(after): \(reason)" }
      case .linkLimit(let links, let asked):
        let line =
          "the adapter holds \(links) link\(links == 1 ? "" : "s") at once: running \(links) devices at a time instead of \(asked)"
        guard isTerminal else { return line }
        s.working["adapter"] = line
      case .linkLimitRaised(let links, let asked):
        let line =
          "links: raising to \(links) at once after successes, one at a time up to \(asked) (lowered again if the adapter refuses)"
        guard isTerminal else { return line }
        s.working["adapter"] = line
      case .linksInUse(let inUse, let limit):
        // Shown with the counts at the next redraw; not a line of its own.
        s.links = (inUse, limit)
        return nil
      case .progress(let address, let done, let total, let rate):
        let eta = rate > 0 ? Int(Double(total - done) / rate) : nil
        s.working[address] =
          "transferring \(done * 100 / max(total, 1))% (\(done)/\(total) bytes, \(Int(rate)) B/s"
          + (eta.map { ", ETA \($0) s" } ?? "") + ")"
        guard isTerminal else { return nil }
      case .finished(let address, let outcome):
        s.working[address] = nil
        if case .failed = outcome { s.failed += 1 } else { s.done += 1 }
        guard isTerminal else {
          let finished = s.done + s.failed
          let step = max(1, total / 10)
          guard finished % step == 0 || finished == total else { return nil }
          return "devices: \(s.done) done, \(s.failed) failed, \(total - finished) pending"
        }
      }
      var lines = [
        "devices: \(s.done) done, \(s.failed) failed, \(total - s.done - s.failed) pending"
          + (s.links.map { "; links \($0.inUse) in use (limit \($0.limit))" } ?? "")
      ]
      lines += s.working.sorted { $0.key < $1.key }.map { "  \($0.key)  \($0.value)" }
      let clear = String(repeating: "\u{1B}[1A\u{1B}[2K", count: s.lastHeight)
      s.lastHeight = lines.count
      return clear + lines.map(\.terminalSafe).joined(separator: "\n")
    }
  }
}

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

  struct ChangeJSON: Encodable {
    var scope: String, key: String, old: String?, new: String
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
          ChangeJSON(scope: $0.scope.description, key: $0.key, old: $0.old?.description, new: $0.new.description)
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

extension ConfigChange {
  /// A text-stream device's command (`SettingScope.command`): it is sent, not a key written.
  var isCommand: Bool {
    if case .command = scope { return true }
    return false
  }
}
