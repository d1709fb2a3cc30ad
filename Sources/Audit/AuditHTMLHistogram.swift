import Foundation

/// The battery histograms of the HTML report: percentage bands (`#chart-battery`, always drawn) and, when
/// a device reports only millivolts, voltage bands (`#chart-battery-mv`). Bands that reach under the
/// low-battery threshold are drawn in the warning colour.
enum AuditHTMLHistogram {
  /// The percentage bands, across the page when there is no voltage chart beside them.
  static func percent(_ report: AuditReport, wide: Bool) -> String {
    // The bands are ten of ten percent (`AuditSummary.percentBuckets`): band i starts at i × 10.
    let low = report.summary.batteryPercent.indices.map { $0 * 10 < report.thresholds.batteryPercent }
    return histogram(
      id: "chart-battery", title: "Battery percentage", unit: "%", buckets: report.summary.batteryPercent, low: low,
      width: wide ? AuditHTMLCharts.wideWidth : AuditHTMLCharts.width)
  }

  /// The voltage bands, or nil when no device reports only millivolts.
  static func millivolts(_ report: AuditReport) -> String? {
    let buckets = report.summary.batteryMillivolts
    guard buckets.contains(where: { $0.count > 0 }) else { return nil }
    // The bands start at 0 (under 2400), 2400, 2600, 2800 and 3000 mV (`AuditSummary.millivoltBuckets`).
    let starts = [0, 2400, 2600, 2800, 3000]
    let low = buckets.indices.map { $0 < starts.count && starts[$0] < report.thresholds.batteryMillivolts }
    return histogram(
      id: "chart-battery-mv", title: "Battery voltage", unit: "mV", buckets: buckets, low: low,
      width: AuditHTMLCharts.width)
  }

  static func note(_ report: AuditReport) -> String {
    let t = report.thresholds
    return "Devices per battery band; red bands reach under the low-battery threshold (\(t.batteryPercent) %, "
      + "\(t.batteryMillivolts) mV). Battery unknown: \(HTMLText.devices(report.summary.batteryUnknown))."
  }

  /// Vertical bars, one per bucket, with the count above each and the band under it.
  static func histogram(id: String, title: String, unit: String, buckets: [AuditBucket], low: [Bool], width: Double)
    -> String
  {
    let (left, right, top, base) = (34.0, width - 8, 24.0, 124.0)
    let slot = (right - left) / Double(max(buckets.count, 1))
    let barWidth = min(slot * 0.7, 44)
    let most = max(buckets.map(\.count).max() ?? 1, 1)
    var out = AuditHTMLCharts.svgOpen(id: id, width: width, height: 162, label: title)
    out += "<text class=\"small muted\" x=\"\(n(left - 6))\" y=\"\(n(top + 4))\" text-anchor=\"end\">\(most)</text>"
    out += "<text class=\"small muted\" x=\"\(n(left - 6))\" y=\"\(n(base + 4))\" text-anchor=\"end\">0</text>"
    out += "<line class=\"grid\" x1=\"\(n(left))\" y1=\"\(n(top))\" x2=\"\(n(right))\" y2=\"\(n(top))\"/>"
    for (i, bucket) in buckets.enumerated() {
      let height = (base - top) * Double(bucket.count) / Double(most)
      let x = left + Double(i) * slot + (slot - barWidth) / 2
      let tone = i < low.count && low[i] ? "bar battery low" : "bar battery"
      out +=
        "<rect class=\"\(tone)\" x=\"\(n(x))\" y=\"\(n(base - height))\" width=\"\(n(barWidth))\" height=\"\(n(height))\" "
        + "data-label=\"\(HTMLText.escape(bucket.label))\" data-count=\"\(bucket.count)\">"
        + "<title>\(HTMLText.escape(bucket.label)): \(HTMLText.devices(bucket.count))</title></rect>"
      if bucket.count > 0 {
        out +=
          "<text class=\"num\" x=\"\(n(x + barWidth / 2))\" y=\"\(n(base - height - 6))\" text-anchor=\"middle\">\(bucket.count)</text>"
      }
      out +=
        "<text class=\"small axis\" x=\"\(n(x + barWidth / 2))\" y=\"\(n(base + 18))\" text-anchor=\"middle\">"
        + "\(HTMLText.escape(band(bucket.label, unit: unit)))</text>"
    }
    out += "<line class=\"baseline\" x1=\"\(n(left))\" y1=\"\(n(base))\" x2=\"\(n(right))\" y2=\"\(n(base))\"/>"
    out += "<text class=\"small muted\" x=\"\(n(right))\" y=\"\(n(base + 36))\" text-anchor=\"end\">\(unit)</text>"
    return out + "</svg>"
  }

  /// The band without its unit (the axis names it once): `0–9 %` → `0–9`, `< 2400 mV` → `< 2400`.
  static func band(_ label: String, unit: String) -> String {
    label.hasSuffix(" " + unit) ? String(label.dropLast(unit.count + 1)) : label
  }

  static func n(_ d: Double) -> String { HTMLText.number(d) }
}
