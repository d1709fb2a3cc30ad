import BeaconCore
import TextStream

/// Human-readable device lines and the live terminal table of `scan`.
enum DeviceLine {
  static let header =
    pad("ADDRESS", 17) + "  " + pad("NAME", 16) + "  " + pad("PDUS", 24) + "  " + pad("RSSI", 17) + "  FRAMES"

  /// One table row: address, name, PDU kinds, RSSI (latest and min..max), decoded summary. What the device
  /// sent (its name, a URL frame's text) has its control characters shown as `\u{XX}` (`TerminalText`).
  /// `fitted` (the terminal table) cuts a column too long for its width with `…`, so the columns after it
  /// stay in line; plain lines (a log, a pipe) keep every value whole.
  static func row(_ d: DeviceRecord, fitted: Bool = false) -> String {
    let rssi = d.rssi.latest.map { latest in "\(latest) (\(d.rssi.min ?? latest)..\(d.rssi.max ?? latest))" } ?? "-"
    let kinds = d.reportKinds.map { $0.replacingOccurrences(of: "ADV_", with: "") }.joined(separator: ",")
    func column(_ text: String, _ width: Int) -> String { fitted ? fit(text, width) : pad(text, width) }
    return pad(d.address.description, 17) + "  " + column(d.name?.terminalSafe ?? "-", 16) + "  "
      + column(kinds, 24) + "  " + column(rssi, 17) + "  " + summary(d).terminalSafe
  }

  /// A plain line for non-terminal output: the window index, then the row, every value whole.
  static func plain(_ d: DeviceRecord, window: Int) -> String { "window \(window)  " + row(d) }

  /// The frames heard; a text-stream device (one advertising a known text-stream service) is
  /// marked `text stream: <profile> (txrx)` first. One that does not advertise its service shows nothing
  /// here: only a connection (`txrx`, `gatt`) tells.
  static func summary(_ d: DeviceRecord) -> String {
    var parts = d.frames.map(\.summary)
    if let profile = TextStreamProfile.matching(advertised: d.vendorServices ?? []) {
      parts.insert("text stream: \(profile.name) (txrx)", at: 0)
    }
    return parts.isEmpty ? "-" : parts.joined(separator: "; ")
  }

  static func pad(_ s: String, _ width: Int) -> String {
    s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
  }

  /// `s` in exactly `width` characters: padded, or cut to `width - 1` and `…` so the columns after it stay
  /// in line (a long name; `--json` and `--jsonl` keep the whole of it).
  static func fit(_ s: String, _ width: Int) -> String {
    s.count <= width ? pad(s, width) : String(s.prefix(width - 1)) + "…"
  }
}

/// The live table: redrawn in place with ANSI cursor movement, at most four times a second of scan time.
/// Rows are cut to the terminal width so that each takes exactly one screen line (the cursor movement
/// counts lines).
struct LiveTable: Sendable {
  private var linesDrawn = 0
  private var lastDraw: Double = -1
  /// Terminal columns; nil means do not cut.
  var width: Int?

  init(width: Int? = nil) { self.width = width }

  /// True when the last redraw is at least 0.25 s of scan time old (checked before building a snapshot).
  func isDue(at seconds: Double) -> Bool { seconds - lastDraw >= 0.25 }

  /// The text that redraws the table.
  mutating func redraw(_ devices: [DeviceRecord], at seconds: Double) -> String {
    lastDraw = seconds
    return draw(
      devices, footer: "scanning… \(Int(seconds * 10) / 10).\(Int(seconds * 10) % 10) s, \(devices.count) devices")
  }

  /// The final table, replacing the live one.
  mutating func final(_ devices: [DeviceRecord]) -> String {
    draw(devices, footer: "\(devices.count) devices")
  }

  private mutating func draw(_ devices: [DeviceRecord], footer: String) -> String {
    let erase = linesDrawn > 0 ? "\u{1B}[\(linesDrawn)A\u{1B}[J" : ""
    let lines = ([DeviceLine.header] + devices.map { DeviceLine.row($0, fitted: true) } + [footer]).map { line in
      guard let width, width > 1, line.count >= width else { return line }
      return String(line.prefix(width - 1))
    }
    linesDrawn = lines.count
    return erase + lines.joined(separator: "\n")
  }
}

extension BeaconFrame {
  /// A short human summary, e.g. `iBeacon E2C56DB5-…:7/1 @-59dBm`, `KSensor 3591mV 25.16°C 34.31%`.
  var summary: String {
    switch self {
    case .iBeacon(let f): "iBeacon \(f.uuid):\(f.major)/\(f.minor) @\(f.measuredPower)dBm"
    case .eddystoneUID(let f): "UID \(f.namespace)/\(f.instance)"
    case .eddystoneURL(let f): "URL \(f.url)"
    case .eddystoneTLM(let f):
      "TLM "
        + [f.batteryMillivolts.map { "\($0)mV" }, f.temperature.map { format($0) + "°C" }].compactMap { $0 }.joined(
          separator: " ")
        + " adv \(f.advertisingCount) up \(format(f.uptimeSeconds))s"
    case .eddystoneEID(let f): "EID \(f.ephemeralID)"
    case .kSensor(let f):
      (["KSensor"]
        + [
          f.batteryMillivolts.map { "\($0)mV" }, f.temperature.map { format($0) + "°C" },
          f.humidity.map { format($0) + "%" },
          f.acceleration.map { "acc(\($0.x),\($0.y),\($0.z))" }, f.lux.map { "\($0)lx" },
          f.co2.map { "CO2 \($0.ppm)ppm" },
        ].compactMap { $0 }).joined(separator: " ")
    case .kkmSystem(let f): "System model \(f.model) \(f.batteryPercent)% fw \(f.firmwareVersion)"
    case .kkmScanResponse(let f): "KKM " + (f.batteryPercent.map { "\($0)%" } ?? "0x2080")
    case .malformed(let m): "\(m.frame.rawValue) malformed: \(m.error)"
    }
  }
}

/// Two decimals, without Foundation formatting.
private func format(_ value: Double) -> String {
  let hundredths = Int((value * 100).rounded())
  let sign = hundredths < 0 ? "-" : ""
  let magnitude = abs(hundredths)
  let fraction = magnitude % 100
  return "\(sign)\(magnitude / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}
