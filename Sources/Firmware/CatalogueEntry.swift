import Profiles

/// One firmware release in a KKM catalogue (docs/protocols/kbeacon.md §11): `{appVersion, appFileName, note}` as
/// KKM's apps read them, plus our optional extension `sha256` (hex, 64 digits) and `size` (bytes) that a
/// download is checked against.
public struct CatalogueEntry: Sendable, Hashable {
  /// The version as the catalogue writes it (`"V5.30"`: a letter, then the number).
  public var appVersion: String
  /// How we order it (`FirmwareVersion`, component by component; see `KKMVersionOrder` for KKM's rule).
  public var version: FirmwareVersion
  /// The package's file name, relative to the catalogue's base URL (never a path: no `/`, `\` or `..`).
  public var appFileName: String
  public var note: String
  /// SHA-256 of the package file, when the catalogue gives it (our extension).
  public var sha256: [UInt8]?
  /// Size of the package file in bytes, when the catalogue gives it (our extension).
  public var size: Int?

  public init(
    appVersion: String, version: FirmwareVersion, appFileName: String, note: String, sha256: [UInt8]? = nil,
    size: Int? = nil
  ) {
    self.appVersion = appVersion
    self.version = version
    self.appFileName = appFileName
    self.note = note
    self.sha256 = sha256
    self.size = size
  }

  /// The sha256 in lower-case hex, when given.
  public var sha256Hex: String? { sha256.map(Hex.string) }
}

/// KKM's own ordering of firmware versions, kept to explain where ours differs (docs/protocols/kbeacon.md §11):
/// the apps parse the text after the first character as a float — `float(appVersion[1:])` against
/// `float(ver[1:])` — and an entry is newer when its float is greater.
///
/// What that rule gets wrong: a float reads "5.10" as 5.1, so "V5.9" (5.9) counts as newer than "V5.10"
/// (5.1), and "V5.3" newer than "V5.22"; a third component ("V5.2.1") is not a number at all, and the app
/// then finds nothing. What we do instead: `FirmwareVersion` compares the dot-separated parts as integers
/// (5.9 < 5.10, 5.3 < 5.22, 5.2.1 > 5.2). The two orders agree whenever the parts have the same number of
/// digits, which is the shape KKM's versions have ("V5.22", "V5.30", two-digit minor — the same shape
/// `KKMFirmwareVersion` maps to a DFU `fw_version`); where they disagree on a catalogue's entries,
/// `firmware catalog` says so, since KKM's app would offer a different "latest".
public enum KKMVersionOrder {
  /// The number KKM's apps compare: the text after its first character as a float; nil when that is
  /// not a number (Java's `Float.parseFloat` would throw, and the app skips the entry).
  public static func value(_ text: String) -> Double? {
    let body = text.dropFirst()
    guard !body.isEmpty, body.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
      body.filter({ $0 == "." }).count <= 1
    else { return nil }
    return Double(String(body))
  }

  /// Whether KKM's rule and ours order `a` and `b` differently (one says newer where the other does not).
  public static func disagrees(_ a: CatalogueEntry, _ b: CatalogueEntry) -> Bool {
    guard let x = value(a.appVersion), let y = value(b.appVersion) else { return false }
    return (x < y) != (a.version < b.version) || (x == y) != (a.version == b.version)
  }
}

/// Lower-case hex text of bytes, and bytes of hex text.
public enum Hex {
  public static func string(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
  }

  public static func bytes(_ text: String) -> [UInt8]? {
    let chars = Array(text.utf8)
    guard chars.count % 2 == 0 else { return nil }
    func nibble(_ c: UInt8) -> UInt8? {
      switch c {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
      default: nil
      }
    }
    var out: [UInt8] = []
    for i in stride(from: 0, to: chars.count, by: 2) {
      guard let hi = nibble(chars[i]), let lo = nibble(chars[i + 1]) else { return nil }
      out.append(hi << 4 | lo)
    }
    return out
  }
}
