/// A beacon named by what it advertises rather than by its Bluetooth address, which many beacons rotate: its
/// iBeacon proximity UUID, major and minor (Lighthouse's `LHBeacon`), or its Eddystone-UID namespace and
/// instance (Eddystone protocol, UID frame: 10-byte namespace, 6-byte instance).
///
/// Text forms, case-insensitive, read by `init?(_:)` and written canonically by `description`:
/// - `ibeacon:E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2` — the UUID in `8-4-4-4-12` form (or 32 hex digits),
///   major and minor as decimal 0…65535; canonical: upper-case UUID with dashes, decimal without leading zeros.
/// - `eddystone:EDD1EBEAC04E5DEFA017:0BDB87539B67` — 20 and 12 hex digits; canonical: upper-case.
///
/// [I] The `ibeacon:`/`eddystone:` prefixes and the `:` separators are this tool's choice (Lighthouse keeps
/// the three iBeacon fields in separate columns); a colon cannot appear in a UUID or hex, so the form is
/// unambiguous and never mistaken for a Bluetooth address.
public enum BeaconIdentity: Sendable, Hashable, CustomStringConvertible {
  case iBeacon(uuid: ProximityUUID, major: UInt16, minor: UInt16)
  case eddystone(namespace: [UInt8], instance: [UInt8])

  /// The forms accepted, for error messages.
  public static let allowed =
    "ibeacon:UUID:MAJOR:MINOR (major and minor 0…65535) or eddystone:NAMESPACE:INSTANCE (20 and 12 hex digits)"

  public init?(_ text: String) {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
    switch parts.first?.lowercased() {
    case "ibeacon":
      guard parts.count == 4, let uuid = Self.uuid(parts[1]), let major = Self.decimal(parts[2]),
        let minor = Self.decimal(parts[3])
      else { return nil }
      self = .iBeacon(uuid: uuid, major: major, minor: minor)
    case "eddystone":
      guard parts.count == 3, let namespace = Self.hex(parts[1], bytes: 10), let instance = Self.hex(parts[2], bytes: 6)
      else { return nil }
      self = .eddystone(namespace: namespace, instance: instance)
    default:
      return nil
    }
  }

  /// Whether the text means to be an identity (starts `ibeacon:` or `eddystone:`), valid or not: such a
  /// text gets an identity's error message rather than "not a Bluetooth address".
  public static func isIntended(_ text: String) -> Bool {
    let lower = text.lowercased()
    return lower.hasPrefix("ibeacon:") || lower.hasPrefix("eddystone:")
  }

  public var description: String {
    switch self {
    case .iBeacon(let uuid, let major, let minor): "ibeacon:\(uuid):\(major):\(minor)"
    case .eddystone(let namespace, let instance): "eddystone:\(Hex.encode(namespace)):\(Hex.encode(instance))"
    }
  }

  /// The identities a set of frames shows: each iBeacon and Eddystone-UID frame's, in frame order, once each.
  public static func shown(by frames: [BeaconFrame]) -> [BeaconIdentity] {
    var found: [BeaconIdentity] = []
    for frame in frames {
      let identity: BeaconIdentity
      switch frame {
      case .iBeacon(let f): identity = .iBeacon(uuid: f.uuid, major: f.major, minor: f.minor)
      case .eddystoneUID(let f): identity = .eddystone(namespace: Array(f.namespace), instance: Array(f.instance))
      default: continue
      }
      if !found.contains(identity) { found.append(identity) }
    }
    return found
  }

  static func uuid(_ text: String) -> ProximityUUID? {
    if text.count == 36 { return ProximityUUID(text) }
    guard let bytes = hex(text, bytes: 16) else { return nil }
    let h = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    let l = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    return ProximityUUID(high: h, low: l)
  }

  static func decimal(_ text: String) -> UInt16? {
    guard !text.isEmpty, text.count <= 5, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
    return UInt16(text)
  }

  static func hex(_ text: String, bytes count: Int) -> [UInt8]? {
    let utf8 = Array(text.utf8)
    guard utf8.count == count * 2, utf8.allSatisfy(Hex.isDigit) else { return nil }
    return (0..<count).map { UInt8(String(decoding: utf8[2 * $0..<2 * $0 + 2], as: UTF8.self), radix: 16)! }
  }
}
