import Foundation
import Glibc
import OwnThreads

/// One `beacon-provision` command on a simulated fleet, run as the operator runs it — the CLI built next to
/// this benchmark, in its own process, `--adapter sim:FILE` — and timed around the process. Its campaign log
/// (`--log-level debug`, standard error) gives the rest: the links in use each time they change
/// (`CampaignEvent.linksInUse`), the link limit lowered or raised, and each device's end. Used by
/// `apply-scaling` and `audit-connect-scaling`.
struct CLIScalingRun {
  /// A fleet of `count` KBeacon Pros (firmware 5.22, System frame in slot 0), an inventory naming them and
  /// a profile turning slot 0 into an iBeacon; `adapterLinks` sets the simulated adapter's links; the first
  /// three devices of a `faulty` fleet fail on their own: busy, another password, every link dropped.
  struct Site {
    let folder: String
    var fleet: String { folder + "/fleet.json" }
    var profile: String { folder + "/site.json" }

    init(count: Int, adapterLinks: Int, faulty: Bool) throws {
      folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-scaling-\(UUID().uuidString)").path
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      let faults =
        faulty
        ? [
          #", "kbeacon": {"busy": true}"#, #", "kbeacon": {"password": "n0t-the-default"}"#,
          #", "kbeacon": {"dropLinkOnReads": 100}"#,
        ] : []
      var entries: [String] = []
      var rows = ["address,minor"]
      for i in 0..<count {
        let address = String(format: "DD:37:00:00:%02X:%02X", i >> 8, i & 0xFF)
        entries.append(
          #"{"address": "\#(address)", "kind": "kbeaconPro", "name": "KB\#(i)", "intervalMs": 200"#
            + #", "system": {"model": 12, "batteryPercent": 90, "firmware": "5.22"}\#(i < faults.count ? faults[i] : "")}"#
        )
        rows.append("\(address),\(i)")
      }
      try #"{"version": 1, "adapter": {"links": \#(adapterLinks)}, "devices": [\#(entries.joined(separator: ",\n"))]}"#
        .write(toFile: fleet, atomically: true, encoding: .utf8)
      try rows.joined(separator: "\n").write(toFile: folder + "/inventory.csv", atomically: true, encoding: .utf8)
      try
        #"{"version": 1, "inventory": "inventory.csv", "desired": {"slots": [{"slot": 0, "type": "ibeacon", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": "{{minor}}"}]}}"#
        .write(toFile: profile, atomically: true, encoding: .utf8)
    }

    func remove() { try? FileManager.default.removeItem(atPath: folder) }
  }

  struct Result {
    var exit: Int32 = 0
    /// The whole command, and its campaign: from the first link to the last device's end; the command's
    /// CPU time (user + system: the client and the simulated fleet share its process).
    var seconds = 0.0, campaignSeconds = 0.0, cpuSeconds = 0.0
    var finished = 0, failed = 0
    /// Links in use, time-weighted, over the campaign and in ten equal slices of it.
    var meanLinks = 0.0
    var slices: [Double] = []
    /// What the campaign said about the link limit: each lowered limit, and a raise.
    var lowered: [String] = []
    var raised: String?
  }

  /// `beacon-provision`, built next to this benchmark.
  static func binary() -> String? {
    let path = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
      "beacon-provision"
    ).path
    return FileManager.default.isExecutableFile(atPath: path) ? path : nil
  }

  static func run(_ binary: String, _ arguments: [String]) async throws -> Result {
    let start = ContinuousClock.now
    let (status, log, cpu) = try await BlockingIO.run { () -> (Int32, String, Double) in
      let before = childrenCPUSeconds()
      let process = Process()
      process.executableURL = URL(fileURLWithPath: binary)
      process.arguments = arguments + ["--log-level", "debug"]
      process.standardOutput = FileHandle.nullDevice
      let stderr = Pipe()
      process.standardError = stderr
      try process.run()
      let data = stderr.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      return (process.terminationStatus, String(decoding: data, as: UTF8.self), childrenCPUSeconds() - before)
    }
    var result = parse(log)
    result.exit = status
    result.cpuSeconds = cpu
    result.seconds = (ContinuousClock.now - start) / .seconds(1)
    return result
  }

  /// The campaign log's lines: `<ISO time> <level> beacon-provision.campaign: <message> key=value …`.
  static func parse(_ log: String) -> Result {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    var result = Result()
    var changes: [(Double, Int)] = []
    var lastEnd = 0.0
    for line in log.split(separator: "\n") where line.contains("beacon-provision.campaign: ") {
      guard let space = line.firstIndex(of: " "), let time = formatter.date(from: String(line[..<space])) else {
        continue
      }
      let t = time.timeIntervalSince1970
      let message = line[line.range(of: "beacon-provision.campaign: ")!.upperBound...]
      if message.hasPrefix("links "), let inUse = value(message, "in-use").flatMap(Int.init) {
        changes.append((t, inUse))
      } else if message.hasPrefix("finished ") {
        result.finished += 1
        if message.contains(" state=failed") { result.failed += 1 }
        lastEnd = t
      } else if message.hasPrefix("link limit raised ") {
        result.raised = result.raised ?? value(message, "links")
      } else if message.hasPrefix("link limit ") {
        result.lowered.append(value(message, "links") ?? "?")
      }
    }
    guard let first = changes.first?.0, lastEnd > first else { return result }
    result.campaignSeconds = lastEnd - first
    // The time-weighted links in use between two instants.
    func mean(_ from: Double, _ to: Double) -> Double {
      var area = 0.0
      var current = 0
      var at = from
      for (t, n) in changes {
        if t >= to { break }
        if t > at {
          area += Double(current) * (t - at)
          at = t
        }
        current = n
      }
      area += Double(current) * (to - at)
      return area / (to - from)
    }
    result.meanLinks = mean(first, lastEnd)
    let slice = (lastEnd - first) / 10
    result.slices = (0..<10).map { mean(first + Double($0) * slice, first + Double($0 + 1) * slice) }
    return result
  }

  /// User + system CPU time of the children waited for so far.
  static func childrenCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1_000_000 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
  }

  static func value(_ message: Substring, _ key: String) -> String? {
    guard let range = message.range(of: " \(key)=") else { return nil }
    return String(message[range.upperBound...].prefix { $0 != " " })
  }

  /// One line of figures for a run against the one-link baseline's seconds per device.
  static func line(_ label: String, _ r: Result, devices: Int, links: Int, baseline: (whole: Double, campaign: Double)?)
    -> String
  {
    var text = String(
      format:
        "%@: exit %d, %.1f s (campaign %.1f s), CPU %.1f s (%.0f %% of one core), %d finished, %d failed; links in use %.2f of %d",
      label, r.exit, r.seconds, r.campaignSeconds, r.cpuSeconds, 100 * r.cpuSeconds / r.seconds, r.finished, r.failed,
      r.meanLinks, links)
    if let baseline {
      let whole = baseline.whole * Double(devices) / r.seconds
      let campaign = baseline.campaign * Double(devices) / r.campaignSeconds
      text += String(
        format: "; speed-up %.2f× whole command, %.2f× campaign (goal ≥ %.2f×)", whole, campaign, 0.95 * Double(links))
    }
    text +=
      "\n    links in use over the campaign (tenths): "
      + r.slices.map { String(format: "%.1f", $0) }.joined(separator: " ")
    if !r.lowered.isEmpty { text += "\n    link limit lowered to " + r.lowered.joined(separator: ", ") }
    if let raised = r.raised { text += "; raised again to \(raised)" }
    return text
  }
}
