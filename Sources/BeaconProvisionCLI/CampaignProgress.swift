import BeaconCore
import CampaignPipeline
import Fleet
import Foundation
import Profiles
import Synchronization

/// Progress of a campaign on standard error: on a terminal, a block redrawn in place (counts, then one line
/// per link in flight with its step); otherwise retries, waits, the link limit and the counts at every tenth of
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
      case .waiting(let address, let reason):
        s.working[address] = reason
        guard isTerminal else { return "\(address)  \(reason)" }
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
        // A device that ends pending (stopped, or left for a later round) is not done: it is counted when it ends.
        switch outcome {
        case .failed: s.failed += 1
        case .pending: if !isTerminal { return nil }  // no count changed
        default: s.done += 1
        }
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

extension ConfigChange {
  /// A text-stream device's command (`SettingScope.command`): it is sent, not a key written.
  var isCommand: Bool {
    if case .command = scope { return true }
    return false
  }
}
