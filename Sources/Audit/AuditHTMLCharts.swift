import Foundation

/// The HTML report's charts, drawn here as inline SVG (so they exist without scripts and print as they
/// look): the status donut, firmware versions, battery histograms and per-tag status. Every bar or segment
/// is one element with `data-label` and `data-count` (and `data-tag` in the tag chart) and a `<title>` for
/// its hover text; legends and axes carry no `data-count`, so counting `[data-count]` reads the bars alone.
enum AuditHTMLCharts {
  /// The charts' width in SVG units, in a half-width panel and in a full-width one; each scales to its panel.
  static let width = 520.0
  static let wideWidth = 1080.0

  /// Compliance and firmware side by side, then the battery percentage and (when a device reports only
  /// millivolts) voltage histograms, then the tags across the page (a fleet can have many).
  static func section(_ report: AuditReport) -> String {
    let s = report.summary
    let voltage = AuditHTMLHistogram.millivolts(report)
    var figures = [
      figure("Compliance", status(s), note: "Share of the \(HTMLText.devices(s.devices)) by status."),
      figure("Firmware versions", firmware(s), note: "Devices per firmware version, newest first."),
      figure(
        "Battery", AuditHTMLHistogram.percent(report, wide: voltage == nil), note: AuditHTMLHistogram.note(report),
        wide: voltage == nil),
    ]
    if let voltage {
      figures.append(
        figure("Battery voltage", voltage, note: "Devices that report only millivolts (KSensor, Eddystone TLM)."))
    }
    figures.append(
      figure(
        "Status per tag", tags(s), note: "Devices per inventory tag, by status; a device with two tags counts in both.",
        wide: true))
    return """
      <section aria-labelledby="h-charts"><h2 id="h-charts">Charts</h2>
      <div class="charts">
      \(figures.joined(separator: "\n"))
      </div>
      </section>
      """
  }

  static func figure(_ title: String, _ svg: String, note: String, wide: Bool = false) -> String {
    "<figure class=\"panel\(wide ? " wide" : "")\"><figcaption><h3>\(title)</h3><p>\(note)</p></figcaption>\(svg)</figure>"
  }

  /// A donut of the status counts with the compliant share in its middle, and a legend with the counts.
  static func status(_ s: AuditSummary) -> String {
    let (cx, cy, r) = (100.0, 100.0, 72.0)
    let circumference = 2 * Double.pi * r
    var out = svgOpen(id: "chart-status", height: 200, label: "Devices by status")
    out += "<circle class=\"track\" cx=\"\(n(cx))\" cy=\"\(n(cy))\" r=\"\(n(r))\"/>"
    var offset = 0.0
    // The ring is the managed devices; unmanaged ones are in the legend only (a zero-length segment).
    for st in AuditHTML.statusOrder {
      let count = s.status[st]
      let length = s.managed == 0 || st == .unknown ? 0 : circumference * Double(count) / Double(s.managed)
      out +=
        "<circle class=\"seg st-\(st.rawValue)\" cx=\"\(n(cx))\" cy=\"\(n(cy))\" r=\"\(n(r))\" "
        + "stroke-dasharray=\"\(n(length)) \(n(circumference))\" stroke-dashoffset=\"\(n(-offset))\" "
        + "transform=\"rotate(-90 \(n(cx)) \(n(cy)))\" data-label=\"\(st.rawValue)\" data-count=\"\(count)\">"
        + "<title>\(AuditHTML.label(st)): \(HTMLText.devices(count))"
        + (st == .unknown ? " (not managed)" : " (\(s.managedPercent(count)) % of managed)") + "</title></circle>"
      offset += length
    }
    let middle = s.managed == 0 ? "—" : "\(s.managedPercent(s.status.compliant)) %"
    out += "<text class=\"big\" x=\"\(n(cx))\" y=\"\(n(cy + 4))\" text-anchor=\"middle\">\(middle)</text>"
    out += "<text class=\"muted\" x=\"\(n(cx))\" y=\"\(n(cy + 24))\" text-anchor=\"middle\">of managed compliant</text>"
    for (i, st) in AuditHTML.statusOrder.enumerated() {
      let y = 40.0 + Double(i) * 30
      out +=
        "<rect class=\"swatch st-\(st.rawValue)\" x=\"230\" y=\"\(n(y - 11))\" width=\"14\" height=\"14\" rx=\"3\"/>"
      out += "<text x=\"254\" y=\"\(n(y))\">\(AuditHTML.label(st))</text>"
      out += "<text class=\"num\" x=\"\(n(width - 10))\" y=\"\(n(y))\" text-anchor=\"end\">\(s.status[st])</text>"
    }
    return out + "</svg>"
  }

  /// One horizontal bar per firmware version.
  static func firmware(_ s: AuditSummary) -> String {
    let rowHeight = 30.0
    let height = max(Double(s.firmware.count) * rowHeight + 12, 60)
    var out = svgOpen(id: "chart-firmware", height: height, label: "Devices per firmware version")
    let most = max(s.firmware.map(\.count).max() ?? 1, 1)
    for (i, bucket) in s.firmware.enumerated() {
      let y = 8 + Double(i) * rowHeight
      let length = 330 * Double(bucket.count) / Double(most)
      let tone = bucket.label == "unknown" ? "bar fw unknown" : "bar fw"
      out +=
        "<text class=\"axis\" x=\"120\" y=\"\(n(y + 15))\" text-anchor=\"end\">\(HTMLText.escape(short(bucket.label)))</text>"
      out +=
        "<rect class=\"\(tone)\" x=\"128\" y=\"\(n(y))\" width=\"\(n(length))\" height=\"20\" rx=\"3\" "
        + "data-label=\"\(HTMLText.escape(bucket.label))\" data-count=\"\(bucket.count)\">"
        + "<title>Firmware \(HTMLText.escape(bucket.label)): \(HTMLText.devices(bucket.count))</title></rect>"
      out += "<text class=\"num\" x=\"\(n(128 + length + 8))\" y=\"\(n(y + 15))\">\(bucket.count)</text>"
    }
    if s.firmware.isEmpty { out += "<text class=\"muted\" x=\"10\" y=\"34\">No devices.</text>" }
    return out + "</svg>"
  }

  /// One horizontal stacked bar per inventory tag, its segments the status counts, scaled to the largest tag.
  static func tags(_ s: AuditSummary) -> String {
    let rowHeight = 30.0
    let height = Double(s.tags.count) * rowHeight + 44
    var out = svgOpen(id: "chart-tags", width: wideWidth, height: height, label: "Devices per inventory tag by status")
    let totals = s.tags.map { t in AuditHTML.statusOrder.map { t.status[$0] }.reduce(0, +) }
    let most = max(totals.max() ?? 1, 1)
    for (i, tag) in s.tags.enumerated() {
      let y = 8 + Double(i) * rowHeight
      out +=
        "<text class=\"axis\" x=\"120\" y=\"\(n(y + 15))\" text-anchor=\"end\">\(HTMLText.escape(short(tag.tag)))"
        + "<title>\(HTMLText.escape(tag.tag))</title></text>"
      var x = 128.0
      for st in AuditHTML.statusOrder {
        let count = tag.status[st]
        let length = (wideWidth - 200) * Double(count) / Double(most)
        out +=
          "<rect class=\"bar st-\(st.rawValue)\" x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(length))\" height=\"20\" "
          + "data-tag=\"\(HTMLText.escape(tag.tag))\" data-label=\"\(st.rawValue)\" data-count=\"\(count)\">"
          + "<title>\(HTMLText.escape(tag.tag)) — \(st.rawValue): \(count) of \(totals[i])</title></rect>"
        x += length
      }
      out += "<text class=\"num\" x=\"\(n(x + 8))\" y=\"\(n(y + 15))\">\(totals[i])</text>"
    }
    if s.tags.isEmpty { out += "<text class=\"muted\" x=\"10\" y=\"24\">No device carries an inventory tag.</text>" }
    out += legend(y: height - 12)
    return out + "</svg>"
  }

  /// The status colours, in a row.
  static func legend(y: Double) -> String {
    var x = 10.0
    var out = ""
    for st in AuditHTML.statusOrder {
      out +=
        "<rect class=\"swatch st-\(st.rawValue)\" x=\"\(n(x))\" y=\"\(n(y - 10))\" width=\"12\" height=\"12\" rx=\"2\"/>"
      out += "<text class=\"small\" x=\"\(n(x + 17))\" y=\"\(n(y))\">\(AuditHTML.label(st))</text>"
      x += 17 + Double(AuditHTML.label(st).count) * 7 + 18
    }
    return out
  }

  static func svgOpen(id: String, width: Double = width, height: Double, label: String) -> String {
    "<svg id=\"\(id)\" class=\"chart\" viewBox=\"0 0 \(n(width)) \(n(height))\" "
      + "role=\"img\" aria-label=\"\(label)\">"
  }

  /// A label cut to 16 characters for an axis (the bar's title has it whole).
  static func short(_ text: String) -> String { text.count > 16 ? String(text.prefix(15)) + "…" : text }

  static func n(_ d: Double) -> String { HTMLText.number(d) }
}
