/// The command set of the simulated Tertium-style reader: a small, documented stand-in for a
/// Tertium RFID/sensor reader, whose point is the shape of its answers — several notifications, longer
/// than one ATT MTU — not a real reader's command language (Tertium documents that per device; seed 001).
///
/// Commands (one per line, case-insensitive, surrounding spaces ignored):
/// - `VER` → `TxRx-SIM 1.0 <profile id>`
/// - `INVENTORY` → one line per tag in the field, `EPC=<24 hex digits>,RSSI=<dBm>`, then `OK` — with the
///   default 12 tags about 500 bytes, so two or more notifications at any MTU
/// - `ECHO <text>` → `<text>`
/// - anything else → `ERR unknown command`
///
/// Every answer line ends with CRLF. Pure: the device actor (`SimulatedTextDevice`) does the timing.
public struct SimulatedReaderCommands: Sendable {
  public let profileID: String
  /// Tags the reader "sees" for `INVENTORY`.
  public let tags: Int

  public init(profileID: String, tags: Int) {
    self.profileID = profileID
    self.tags = max(0, tags)
  }

  public func answer(_ line: String) -> String {
    let trimmed = line.trimmingSpaces
    let upper = trimmed.uppercased()
    if upper == "VER" { return "TxRx-SIM 1.0 \(profileID)\r\n" }
    if upper == "INVENTORY" {
      var out = ""
      for n in 0..<tags {
        let epc = "E28011606000" + String(0x0200_0000 + n * 0x1111, radix: 16, uppercase: true).leftPadded(12)
        out += "EPC=\(epc),RSSI=-\(48 + (n * 7) % 30)\r\n"
      }
      return out + "OK\r\n"
    }
    if upper.hasPrefix("ECHO ") { return String(trimmed.dropFirst(5)) + "\r\n" }
    return "ERR unknown command\r\n"
  }
}

extension String {
  /// Without leading and trailing spaces and tabs.
  var trimmingSpaces: String {
    let scalars = unicodeScalars
    guard let start = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
      let end = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })
    else { return "" }
    return String(scalars[start...end])
  }

  func leftPadded(_ width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
