import BeaconCore
import Foundation

/// The report as Markdown for a ticket: the summary, per-tag counts, the devices that need attention with
/// their drift, then every device in one table. Cell text has `|` and line breaks escaped.
public enum AuditMarkdown {
  public static func render(_ report: AuditReport) -> String {
    let s = report.summary
    var out = ["# Fleet audit, \(report.generatedAt.formatted(.iso8601))", ""]
    out.append(
      "\(report.mode == .connect ? "Advertisements and configuration read" : "Advertisements only") on \(report.adapter), "
        + "\(FormatNumber.plain(report.scanSeconds)) s scan; profiles: \(report.profiles.isEmpty ? "none" : report.profiles.joined(separator: ", "))"
        + (report.inventory.map { "; inventory: \($0)" } ?? "") + ".")
    out += [
      "",
      "| devices | compliant | drifted | unreachable | missing | unknown | low battery | old firmware | last run failed |",
      "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
      "| \(s.devices) | \(s.status.compliant) | \(s.status.drifted) | \(s.status.unreachable) | \(s.status.missing) | "
        + "\(s.status.unknown) | \(s.lowBattery) | \(s.oldFirmware) | \(s.lastRunFailed) |",
    ]
    out += [
      "",
      "\(s.status.compliant) of \(s.managed) managed devices compliant (\(s.managedPercent(s.status.compliant)) %)"
        + (s.status.unknown == 0
          ? "."
          : "; \(s.status.unknown) heard that no profile manages (unknown), not in the share"
            + (report.unmanagedHidden == true ? " and not listed." : ".")),
    ]
    if s.firmwareUnknown > 0 {
      out += [
        "",
        "Firmware not compared for \(s.firmwareUnknown) managed device\(s.firmwareUnknown == 1 ? "" : "s"): "
          + "\(s.firmwareUnknown == 1 ? "its" : "their") version is not known (read \(s.firmwareUnknown == 1 ? "it" : "them") with `audit --connect`).",
      ]
    }
    if !s.tags.isEmpty {
      out += [
        "", "## Per tag", "", "| tag | compliant | drifted | unreachable | missing | unknown |",
        "|---|---:|---:|---:|---:|---:|",
      ]
      for t in s.tags {
        out.append(
          "| \(cell(t.tag)) | \(t.status.compliant) | \(t.status.drifted) | \(t.status.unreachable) | \(t.status.missing) | \(t.status.unknown) |"
        )
      }
    }
    out += ["", "## Firmware", ""] + s.firmware.map { "- \(cell($0.label)): \($0.count)" }
    // "Needs attention" is one thing in every format (`AuditStatus.needsAttention`, the exit code and the
    // HTML banner): drifted, missing, unreachable. Devices only flagged (battery, firmware, a failed run) are
    // listed apart.
    let attention = report.devices.filter { $0.status.needsAttention }
    let flagged = report.devices.filter { !$0.status.needsAttention && !$0.flags.isEmpty }
    for (title, group) in [("Needs attention", attention), ("Flagged (battery, firmware, last run)", flagged)]
    where !group.isEmpty {
      out += ["", "## \(title)", ""]
      for d in group {
        let flags = d.flags.isEmpty ? "" : " — " + d.flags.map(\.rawValue).joined(separator: ", ")
        out.append("- **\(d.address)** \(cell(d.name ?? "")) — \(d.status.rawValue)\(flags)")
        if let error = d.error { out.append("  - \(cell(error))") }
        for drift in d.drift { out.append("  - \(cell(AuditCSV.describe(drift)))") }
      }
    }
    let resolves = report.infoManager != nil
    if resolves {
      let unregistered = report.devices.filter { $0.infoManager?.registration == .notRegistered }
      out += [
        "", "## blukii Info Manager", "",
        "\(unregistered.count) blukii module(s) heard but not registered"
          + (unregistered.isEmpty
            ? "."
            : ": " + unregistered.map { "\($0.address) (\(cell($0.infoManager!.id)))" }.joined(separator: ", ") + "."),
      ]
    }
    out += [
      "", "## Devices", "",
      "| address | name | status | last seen | RSSI | battery | firmware | tags | drift |"
        + (resolves ? " Info Manager |" : ""), "|---|---|---|---|---:|---|---|---|---:|" + (resolves ? "---|" : ""),
    ]
    for d in report.devices {
      let battery = [d.battery?.percent.map { "\($0) %" }, d.battery?.millivolts.map { "\($0) mV" }].compactMap { $0 }
        .joined(separator: ", ")
      out.append(
        "| \(d.address) | \(cell(d.name ?? "")) | \(d.status.rawValue) | \(d.lastSeen?.formatted(.iso8601) ?? "never") | "
          + "\(d.rssi.map(String.init) ?? "") | \(battery) | \(cell(d.firmwareVersion ?? "")) | \(cell(d.tags.joined(separator: ", "))) | \(d.drift.count) |"
          + (resolves ? " \(cell(d.infoManager?.text ?? "")) |" : ""))
    }
    return out.joined(separator: "\n") + "\n"
  }

  /// Text for a table cell: `|` escaped, line breaks as spaces, `<` as an entity (no HTML in a ticket).
  /// Text safe in a table cell or a list line: `|` and Markdown's emphasis, code and link marks (`*`, `_`,
  /// `` ` ``, `~`, `[`, `]`) are backslash-escaped (a name `**x**` was rendered bold), `<` becomes `&lt;`, line
  /// breaks become spaces and other control characters are shown as `TerminalText` shows them (`\u{1B}`).
  static func cell(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "|", "*", "_", "`", "~", "[", "]": out += "\\" + String(scalar)
      case "<": out += "&lt;"
      case "\r", "\n": out += " "
      default: out += TerminalText.isControl(scalar) ? TerminalText.escaped(String(scalar)) : String(scalar)
      }
    }
    return out
  }
}

/// `5` for 5.0, `2.5` otherwise.
enum FormatNumber {
  static func plain(_ d: Double) -> String { Int(exactly: d).map(String.init) ?? String(d) }
}
