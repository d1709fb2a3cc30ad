import Foundation

/// A device's drift in the HTML report, in a row of its own under the device's row (across the table, so
/// the settings have room): its error in the summary line and, behind a `<details>`, every setting that
/// differs (scope, key, expected, actual, how it was seen) and its last apply and DFU runs. A device with none
/// of these has no such row. Print opens every `<details>`.
enum AuditHTMLDrift {
  /// The `<details>`, or nil when there is nothing to show.
  static func details(_ d: AuditDevice) -> String? {
    let runs = [("Last apply", d.lastApply), ("Last DFU", d.lastDFU)].compactMap { label, run in run.map { (label, $0) }
    }
    guard !d.drift.isEmpty || d.error != nil || !runs.isEmpty else { return nil }
    var parts =
      d.drift.isEmpty
      ? [] : ["\(d.drift.count) setting\(d.drift.count == 1 ? " differs" : "s differ") from the profile"]
    if runs.contains(where: { $0.1.failed }) { parts.append("last run failed") }
    if let error = d.error { parts.append("<span class=\"error\">error: \(HTMLText.escape(error))</span>") }
    let summary = parts.isEmpty ? "Last runs" : parts.joined(separator: " · ")
    var body = ""
    if !d.drift.isEmpty {
      body +=
        "<table class=\"drift\"><thead><tr><th>Scope</th><th>Setting</th><th>Expected</th><th>Actual</th><th>Seen</th></tr></thead><tbody>"
      for drift in d.drift { body += row(drift) }
      body += "</tbody></table>"
    }
    for (label, run) in runs { body += "<p class=\"run\">\(label): \(describe(run))</p>" }
    // An error alone is all in the summary line: nothing to open.
    guard !body.isEmpty else { return "<p class=\"detail-line\">\(summary)</p>" }
    return "<details><summary>\(summary)</summary><div class=\"drift-body\">\(body)</div></details>"
  }

  static func row(_ drift: AuditDrift) -> String {
    let e = HTMLText.escape
    let actual = drift.actual.map { "<code>\(e($0))</code>" } ?? "<em class=\"muted\">absent</em>"
    let seen = drift.source == .air ? "on the air" : "read"
    return
      "<tr data-source=\"\(drift.source.rawValue)\"><td>\(e(drift.scope))</td><td><code>\(e(drift.key))</code></td>"
      + "<td><code>\(e(drift.expected))</code></td><td>\(actual)</td><td>\(seen)</td></tr>"
  }

  /// `run 2025-03-01-a (apply) failed, 2025-03-01 10:00 UTC — timeout`.
  static func describe(_ run: AuditRunLink) -> String {
    let e = HTMLText.escape
    let outcome = "<span class=\"\(run.failed ? "outcome failed" : "outcome")\">\(e(run.outcome))</span>"
    return "run <code>\(e(run.run))</code> (\(e(run.kind))) \(outcome), \(HTMLText.time(run.at))"
      + (run.detail.map { " — \(e($0))" } ?? "")
  }
}
