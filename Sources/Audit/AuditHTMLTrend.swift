/// The HTML report's trend lines: a small inline SVG polyline of a device's earlier readings (the
/// registry's short history) and the current one, in the RSSI and battery cells, so the trend that was in
/// the JSON only is seen at a glance. Inline `<svg>` is markup, not a loaded image, so the page's
/// Content-Security-Policy needs nothing more. Pure: values in, markup out.
enum AuditHTMLTrend {
  static let width = 64.0, height = 16.0

  /// RSSI readings oldest first, the current reading last; nil when fewer than two.
  static func rssi(_ d: AuditDevice) -> String? {
    let values = d.history.compactMap(\.rssi) + (d.rssi.map { [$0] } ?? [])
    return line(values, kind: "rssi", unit: "dBm")
  }

  /// Battery readings of the same kind as the current one (percent, else millivolts), oldest first.
  static func battery(_ d: AuditDevice) -> String? {
    guard let current = d.battery, !current.isEmpty else { return nil }
    if let percent = current.percent {
      return line(d.history.compactMap(\.battery.percent) + [percent], kind: "battery", unit: "%")
    }
    return line(
      d.history.compactMap(\.battery.millivolts) + current.millivolts.map { [$0] }!, kind: "battery", unit: "mV")
  }

  static func tenth(_ x: Double) -> String { FormatNumber.plain((x * 10).rounded() / 10) }

  /// A polyline scaled to the values' own range (a flat series is drawn at mid-height); its label says the
  /// first and last values for screen readers and for the tests.
  static func line(_ values: [Int], kind: String, unit: String) -> String? {
    guard values.count >= 2, let low = values.min(), let high = values.max() else { return nil }
    let span = Double(high - low)
    let step = width / Double(values.count - 1)
    let points = values.enumerated().map { i, v in
      let y = span == 0 ? height / 2 : (height - 2) - (Double(v - low) / span) * (height - 4)
      return "\(tenth(Double(i) * step)),\(tenth(y))"
    }
    let label =
      "\(kind == "rssi" ? "RSSI" : "battery") trend over \(values.count) readings: \(values[0]) → \(values[values.count - 1]) \(unit)"
    return
      "<svg class=\"trend\" data-trend=\"\(kind)\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" width=\"\(Int(width))\" height=\"\(Int(height))\" "
      + "role=\"img\" aria-label=\"\(HTMLText.escape(label))\"><polyline points=\"\(points.joined(separator: " "))\"/></svg>"
  }
}
