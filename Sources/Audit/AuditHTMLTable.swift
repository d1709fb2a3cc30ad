import Foundation

/// The HTML report's device table: one `tr[data-address][data-status]` per device, in address order, with
/// a `data-sort` value on the cells whose text does not sort by itself (status by concern, times, numbers,
/// firmware by version); a device with drift, an error or runs to show has a `tr.detail` right under its
/// row with them in a `<details>` (`AuditHTMLDrift`), which the script moves and hides with it. The filter
/// controls stay `hidden` until the script shows them (they do nothing without it).
enum AuditHTMLTable {
  /// The columns: key (for `#sort=`), header, how the script sorts it.
  static let columns: [(key: String, title: String, type: String)] = [
    ("address", "Address", "text"), ("name", "Name", "text"), ("status", "Status", "num"),
    ("seen", "Last seen (UTC)", "num"),
    ("rssi", "RSSI", "num"), ("battery", "Battery", "num"), ("firmware", "Firmware", "num"), ("tags", "Tags", "text"),
    ("flags", "Flags", "num"), ("drift", "Drift", "num"),
  ]

  /// The columns of this report: `columns`, and "Info Manager" when resolve was configured.
  static func columns(_ report: AuditReport) -> [(key: String, title: String, type: String)] {
    report.infoManager == nil ? columns : columns + [("infomanager", "Info Manager", "text")]
  }

  static func section(_ report: AuditReport) -> String {
    let s = report.summary
    let options = AuditHTML.statusOrder.map {
      "<option value=\"\($0.rawValue)\">\(AuditHTML.label($0)) (\(s.status[$0]))</option>"
    }
    let head = columns(report).map { c in
      let right = ["rssi", "battery", "drift"].contains(c.key) ? " class=\"numeric\"" : ""
      return "<th scope=\"col\"\(right) data-key=\"\(c.key)\" data-type=\"\(c.type)\">\(c.title)</th>"
    }.joined()
    let rows = report.devices.map { row($0, report: report) }.joined(separator: "\n")
    return """
      <section aria-labelledby="h-devices"><h2 id="h-devices">Devices</h2>
      <div class="controls" id="controls" hidden>
      <label>Search <input type="search" id="filter-text" placeholder="Address, name, tag, firmware…" autocomplete="off"></label>
      <label>Status <select id="filter-status"><option value="">All statuses (\(s.devices))</option>\(options.joined())</select></label>
      <button type="button" id="expand-all">Expand all details</button>
      </div>
      <p class="showing">Showing <strong id="visible-count">\(report.devices.count)</strong> of \(HTMLText.devices(s.devices))\
      <span id="filter-note"></span>.<span class="hint"> Click a column header to sort.</span></p>
      <div class="table-wrap">
      <table id="devices">
      <thead><tr>\(head)</tr></thead>
      <tbody>
      \(rows)
      </tbody>
      </table>
      </div>
      <p class="no-match" id="no-match" hidden>No device matches the filter.</p>
      </section>
      """
  }

  static func row(_ d: AuditDevice, report: AuditReport) -> String {
    let e = HTMLText.escape
    let concern = AuditStatus.allCases.firstIndex(of: d.status) ?? 0
    let name = d.name.map { "<span class=\"name\">\(e($0))</span>" } ?? "<span class=\"muted\">no name</span>"
    let about = [d.model, d.profile].compactMap { $0 }.map(e).joined(separator: " · ")
    let seen =
      d.lastSeen.map {
        "\(HTMLText.time($0, zone: false))<div class=\"sub\">\(d.heard ? "in this scan" : "registry; not heard")</div>"
      }
      ?? "<span class=\"muted\">never</span>"
    let rssi =
      (d.rssi.map { "\($0) dBm" } ?? "<span class=\"muted\">—</span>")
      + (AuditHTMLTrend.rssi(d).map { "<div>\($0)</div>" } ?? "")
    let low = d.flags.contains(.lowBattery) ? " low" : ""
    let battery = [d.battery?.percent.map { "\($0) %" }, d.battery?.millivolts.map { "\($0) mV" }].compactMap { $0 }
    let batteryCell =
      (battery.isEmpty
        ? "<span class=\"muted\">—</span>" : "<span class=\"battery\(low)\">\(battery.joined(separator: " · "))</span>")
      + (AuditHTMLTrend.battery(d).map { "<div>\($0)</div>" } ?? "")
    let cells =
      [
        cell("<span class=\"mono\">\(e(d.address))</span>"),
        cell(name + (about.isEmpty ? "" : "<div class=\"sub\">\(about)</div>"), sort: d.name ?? ""),
        cell("<span class=\"pill st-\(d.status.rawValue)\">\(d.status.rawValue)</span>", sort: "\(concern)"),
        cell(seen, sort: d.lastSeen.map { String(Int($0.timeIntervalSince1970)) } ?? ""),
        cell(rssi, sort: d.rssi.map(String.init) ?? "", numeric: true),
        cell(batteryCell, sort: batterySort(d.battery, flaggedLow: !low.isEmpty) ?? "", numeric: true),
        cell(
          d.firmwareVersion.map(e) ?? "<span class=\"muted\">unknown</span>",
          sort: firmwareRank(d.firmwareVersion, report.summary) ?? ""),
        cell(
          d.tags.map { "<span class=\"chip\">\(e($0))</span>" }.joined(separator: " "),
          sort: d.tags.joined(separator: " ")),
        cell(
          d.flags.map { "<span class=\"chip flag\">\(AuditHTML.label($0))</span>" }.joined(separator: " "),
          sort: "\(d.flags.count)"),
        cell(
          d.drift.isEmpty ? "<span class=\"zero\">0</span>" : "<strong>\(d.drift.count)</strong>",
          sort: "\(d.drift.count)", numeric: true),
      ]
      + (report.infoManager == nil
        ? []
        : [cell(d.infoManager.map { e($0.text) } ?? "<span class=\"muted\">—</span>", sort: d.infoManager?.text ?? "")])
    let details = AuditHTMLDrift.details(d)
    let row =
      "<tr data-address=\"\(e(d.address))\" data-status=\"\(d.status.rawValue)\"\(details == nil ? "" : " class=\"has-detail\"")>"
      + "\(cells.joined())</tr>"
    return row
      + (details.map { "\n<tr class=\"detail\"><td colspan=\"\(columns(report).count)\">\($0)</td></tr>" } ?? "")
  }

  /// A cell; `sort` is the value the script sorts by (empty sorts last), else it sorts by the text.
  static func cell(_ html: String, sort: String? = nil, numeric: Bool = false) -> String {
    let attribute = sort.map { " data-sort=\"\(HTMLText.escape($0))\"" } ?? ""
    return "<td\(numeric ? " class=\"numeric\"" : "")\(attribute)>\(html)</td>"
  }

  /// Percent-reporting devices by percentage, then millivolt-only ones by voltage (the two scales cannot be
  /// compared, so they are not mixed); unknown sorts last.
  /// The battery column's sort value on one scale for devices that report a percentage and devices that
  /// report only millivolts: devices flagged low first (0–100), then the rest (1000–1100), each by its
  /// estimated charge. Millivolts become a percentage linearly from 2,000 mV (empty) to 3,000 mV (full):
  /// [I] the working range of the coin cells and lithium pairs beacons run on; no vendor publishes a curve.
  /// A flagged 2,200 mV device sorted after one at 34 % when millivolts were ranked on a scale of their own.
  static func batterySort(_ battery: AuditBattery?, flaggedLow: Bool) -> String? {
    guard let battery, let charge = battery.percent ?? battery.millivolts.map(estimatedPercent) else { return nil }
    return String((flaggedLow ? 0 : 1000) + min(max(charge, 0), 100))
  }

  static func estimatedPercent(millivolts: Int) -> Int { (millivolts - 2000) / 10 }

  /// The version's place in the summary's firmware buckets, larger is newer (the summary orders them by
  /// version number); unknown sorts last.
  static func firmwareRank(_ version: String?, _ summary: AuditSummary) -> String? {
    guard let version, let index = summary.firmware.firstIndex(where: { $0.label == version }) else { return nil }
    return String(summary.firmware.count - index)
  }
}
