/// The text of a duration option (`reconcile --recheck`, `--forget-after`): a positive number of seconds, or of
/// minutes, hours or days with an `m`, `h` or `d` suffix (`s` is allowed too): `90`, `12h`, `1.5d`.
enum DurationText {
  static let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]

  /// The seconds `text` gives, or nil when it is not a positive finite duration.
  static func seconds(_ text: String) -> Double? {
    let unit = text.last.flatMap { units[$0] }
    guard let value = Double(unit == nil ? Substring(text) : text.dropLast()), value > 0 else { return nil }
    let seconds = value * (unit ?? 1)
    return seconds.isFinite ? seconds : nil
  }
}
