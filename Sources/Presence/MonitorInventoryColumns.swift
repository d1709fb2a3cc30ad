import BeaconCore
import JSON
import Profiles

/// The inventory columns the monitor reads per device (`MonitorSettings`: `exitTimeout`, `enterRSSI`),
/// checked once at start with the events file's ranges, so a bad cell is refused with its row and column
/// instead of being read as a value that makes no sense (`exitTimeout` 0 or −5 made a device heard
/// throughout enter and exit every second; `abc` was silently ignored).
///
/// [I] The ranges are the events file's own for `defaults` (`EventFileDecoder`): `exitTimeout` 1…86400
/// seconds, `enterRSSI` −127…20 dBm (an advertising report's RSSI range, Core v5.4 Vol 4 Part E §7.7.65.2).
/// An empty cell means "not set": the events file's default applies.
public enum MonitorInventoryColumns {
  public static let exitTimeoutRange: ClosedRange<Double> = 1...86_400
  public static let enterRSSIRange: ClosedRange<Int> = -127...20

  /// Every out-of-range or unreadable cell, thrown together.
  public static func validate(_ inventory: Inventory, file: String) throws(ProfileDiagnostics) {
    var problems: [JSONDiagnostic] = []
    for row in inventory.rows {
      if let text = cell(row, "exitTimeout") {
        let value = Double(text)
        if value == nil || !(value!.isFinite && exitTimeoutRange.contains(value!)) {
          problems.append(problem(file, row, "exitTimeout", text, allowed: "seconds, 1…86400"))
        }
      }
      if let text = cell(row, "enterRSSI"), Int(text).map(enterRSSIRange.contains) != true {
        problems.append(problem(file, row, "enterRSSI", text, allowed: "an integer in dBm, -127…20"))
      }
    }
    if !problems.isEmpty { throw ProfileDiagnostics(problems, subject: "the inventory") }
  }

  /// The cell's text, trimmed; nil when the column is absent or the cell empty.
  static func cell(_ row: Inventory.Row, _ column: String) -> String? {
    guard let raw = row.variables[column] else { return nil }
    let text = String(raw.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    return text.isEmpty ? nil : text
  }

  static func problem(_ file: String, _ row: Inventory.Row, _ column: String, _ text: String, allowed: String)
    -> JSONDiagnostic
  {
    let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
    return JSONDiagnostic(
      file: file, position: row.position, path: JSONPath([.index(row.index), .key(column)]),
      message: "\(row.address): \"\(shown.echoed)\" is not a valid \(column)", allowed: allowed)
  }
}
