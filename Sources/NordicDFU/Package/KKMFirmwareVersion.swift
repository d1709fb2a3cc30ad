/// How a DFU init packet's `fw_version` integer relates to the firmware version a KKM KBeacon reports in
/// its `ver` key (docs/protocols/kbeacon.md §6.3) — the one place this mapping lives.
///
/// [I] Neither spec states it; we take `fw_version` N ↔ `ver` "V<N/100>.<N%100, two digits>", so 530 ↔
/// "V5.30" and 522 ↔ "V5.22" (the shape KKM's own version strings have). Change it here and the simulator
/// (what a KBeacon reports after a DFU) and the CLI (`dfu update`'s default `--package-version`) follow.
public enum KKMFirmwareVersion {
  /// The `ver` text a device running application `fw_version` reports.
  public static func text(fwVersion: UInt32) -> String {
    "V\(fwVersion / 100)." + (fwVersion % 100 < 10 ? "0" : "") + String(fwVersion % 100)
  }

  /// The `fw_version` for a `ver` text like "V5.30" (or "5.30"); nil when it does not have that shape.
  public static func fwVersion(text: String) -> UInt32? {
    var body = Substring(text)
    if body.first == "V" || body.first == "v" { body = body.dropFirst() }
    let parts = body.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 2, parts[1].count == 2, let major = UInt32(parts[0]), let minor = UInt32(parts[1]) else {
      return nil
    }
    let (n, overflow) = major.multipliedReportingOverflow(by: 100)
    return overflow ? nil : n &+ minor
  }
}
