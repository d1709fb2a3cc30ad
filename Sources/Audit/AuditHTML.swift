import Foundation

/// The report as one self-contained HTML5 page for people: the header, summary cards, charts (inline SVG
/// made here, so they are there without scripts and in print), and a device table a small inline script
/// makes sortable and filterable. Nothing is fetched: no external font, script or image, and a
/// Content-Security-Policy (`default-src 'none'`, the script and style sheet allowed by their SHA-256) makes
/// the browser refuse any request and any other script. Every text from the report is escaped
/// (`HTMLText.escape`); every number comes from `report.summary` or a device row, never counted here.
///
/// For tests and tools the page carries its numbers as attributes: `#chart-status`, `#chart-firmware`,
/// `#chart-battery` (`#chart-battery-mv`) and `#chart-tags` hold one element per bar with `data-label` and
/// `data-count` (the tag chart `data-tag` too); `table#devices` has one `tr[data-address][data-status]` per
/// device; the script sets `body[data-ready="1"]` and the number of visible rows in `#visible-count`. The
/// page honours `#filter=<status>`, `#q=<text>` and `#sort=<column>&dir=desc` in its URL.
public enum AuditHTML {
  public static func render(_ report: AuditReport) -> String {
    let style = AuditHTMLStyle.css
    let script = AuditHTMLScript.js
    let policy =
      "default-src 'none'; style-src \(SHA256.cspSource(style)); script-src \(SHA256.cspSource(script)); "
      + "img-src data:; base-uri 'none'; form-action 'none'"
    return """
      <!DOCTYPE html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta http-equiv="Content-Security-Policy" content="\(policy)">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <meta name="color-scheme" content="light">
      <meta name="generator" content="beacon-provision (\(HTMLText.escape(report.schema)))">
      <link rel="icon" href="data:,">
      <title>Fleet audit \(HTMLText.escape(String(report.generatedAt.formatted(.iso8601).prefix(10))))</title>
      <style>\(style)</style>
      </head>
      <body>
      \(header(report))
      <main>
      \(verdict(report.summary))
      \(cards(report))
      \(AuditHTMLCharts.section(report))
      \(AuditHTMLTable.section(report))
      </main>
      <footer>Written by beacon-provision, schema \(HTMLText.escape(report.schema)). A self-contained file: it loads \
      nothing from the network.</footer>
      <script>\(script)</script>
      </body>
      </html>

      """
  }

  static func header(_ report: AuditReport) -> String {
    let mode = report.mode == .connect ? "Connect (configuration read)" : "Passive (advertisements only)"
    let profiles = report.profiles.isEmpty ? "none" : report.profiles.map(HTMLText.escape).joined(separator: ", ")
    let t = report.thresholds
    let items: [(String, String)] = [
      ("Mode", HTMLText.escape(mode)), ("Adapter", HTMLText.escape(report.adapter)), ("Profiles", profiles),
      ("Inventory", report.inventory.map(HTMLText.escape) ?? "none"),
      ("Scan", "\(FormatNumber.plain(report.scanSeconds)) s"),
      ("Low battery", "under \(t.batteryPercent) % or \(t.batteryMillivolts) mV"),
    ]
    let meta = items.map { "<div><dt>\($0.0)</dt><dd>\($0.1)</dd></div>" }.joined()
    return """
      <header class="page-head">
      <div class="title-row"><div><p class="eyebrow">beacon-provision</p><h1>Fleet audit</h1></div>
      <p class="generated">Generated <strong>\(HTMLText.time(report.generatedAt, seconds: true))</strong></p></div>
      <dl class="meta" id="meta">\(meta)</dl>
      </header>
      """
  }

  /// One sentence on top: how many devices need attention, by the statuses that do.
  static func verdict(_ s: AuditSummary) -> String {
    let attention = AuditStatus.allCases.filter(\.needsAttention)
    let total = attention.map { s.status[$0] }.reduce(0, +)
    guard s.devices > 0 else { return "<p class=\"verdict\" id=\"verdict\">No devices were found or expected.</p>" }
    let unmanaged =
      s.status.unknown == 0
      ? ""
      : " \(HTMLText.devices(s.status.unknown)) heard that no profile manages \(s.status.unknown == 1 ? "is" : "are") counted apart."
    guard total > 0 else {
      return
        "<p class=\"verdict ok\" id=\"verdict\">No device needs attention: none drifted, missing or unreachable.\(unmanaged)</p>"
    }
    let parts = attention.filter { s.status[$0] > 0 }.map { "\(s.status[$0]) \($0.rawValue)" }.joined(separator: ", ")
    return "<p class=\"verdict attention\" id=\"verdict\"><strong>\(HTMLText.devices(total)) of \(s.managed) managed "
      + "need\(total == 1 ? "s" : "") attention</strong> (\(parts)).\(unmanaged)</p>"
  }

  static func cards(_ report: AuditReport) -> String {
    let s = report.summary
    var status = [card(key: "devices", label: "Devices", value: s.devices, note: "in this report", tone: "total")]
    for st in statusOrder {
      // Shares of the managed devices; the unmanaged card says it is outside them.
      let note =
        st == .unknown
        ? "not managed, not in the shares · \(meaning(st))"
        : "\(s.managedPercent(s.status[st])) % of managed · \(meaning(st))"
      status.append(
        card(key: st.rawValue, label: label(st), value: s.status[st], note: note, tone: "st-\(st.rawValue)"))
    }
    let t = report.thresholds
    let flags = [
      card(
        key: "lowBattery", label: label(.lowBattery), value: s.lowBattery,
        note: "under \(t.batteryPercent) % or \(t.batteryMillivolts) mV",
        tone: s.lowBattery > 0 ? "flag-on" : "flag-off"),
      card(
        key: "oldFirmware", label: label(.oldFirmware), value: s.oldFirmware,
        note: (t.newestFirmware.isEmpty ? "no firmware cache to compare with" : "older than the newest cached")
          + (s.firmwareUnknown == 0
            ? "" : " · not compared: \(s.firmwareUnknown) managed of unknown version (audit --connect reads it)"),
        tone: s.oldFirmware > 0 ? "flag-on" : "flag-off"),
      card(
        key: "lastRunFailed", label: label(.lastRunFailed), value: s.lastRunFailed, note: "last apply or DFU run",
        tone: s.lastRunFailed > 0 ? "flag-on" : "flag-off"),
    ]
    return """
      <section aria-labelledby="h-summary"><h2 id="h-summary">Summary</h2>
      <div class="cards" id="status-cards">\(status.joined())</div>
      <div class="cards flags" id="flag-cards">\(flags.joined())</div>
      </section>
      """
  }

  static func card(key: String, label: String, value: Int, note: String, tone: String) -> String {
    "<div class=\"card \(tone)\" data-card=\"\(key)\"><div class=\"card-label\">\(label)</div>"
      + "<div class=\"card-value\">\(value)</div><div class=\"card-note\">\(HTMLText.escape(note))</div></div>"
  }

  /// The statuses in the order the page shows them: the good news first, then by concern.
  static let statusOrder: [AuditStatus] = [.compliant, .drifted, .unreachable, .missing, .unknown]

  static func label(_ status: AuditStatus) -> String {
    status.rawValue.prefix(1).uppercased() + status.rawValue.dropFirst()
  }

  static func meaning(_ status: AuditStatus) -> String {
    switch status {
    case .compliant: "matches its profile"
    case .drifted: "differs from its profile"
    case .unreachable: "heard, configuration not read"
    case .missing: "expected, not heard"
    case .unknown: "heard, no profile manages it"
    }
  }

  static func label(_ flag: AuditFlag) -> String {
    switch flag {
    case .lowBattery: "Low battery"
    case .oldFirmware: "Old firmware"
    case .lastRunFailed: "Last run failed"
    }
  }

  /// `n` as a whole percentage of `total` (0 when there is nothing to divide).
  static func percent(_ n: Int, of total: Int) -> Int {
    total == 0 ? 0 : Int((Double(n) * 100 / Double(total)).rounded())
  }
}
