import Foundation
import NordicDFU
import Profiles

/// A configuration read, reduced to what identifies it: the canonical JSON of a `DeviceConfigView` and its
/// SHA-256, which the fleet registry keeps so an audit can tell whether a device changed since it was last
/// read. Two reads of the same configuration give the same hash whatever order the device sent its keys in.
///
/// Left out before anything is encoded:
/// - every key whose name contains `pwd` or `password` (any case, any section): the KBeacon `pwd` key
///   (docs/protocols/kbeacon.md §6.3, write-only, but a view built from a patch may hold it) must leave no
///   trace, not even as a hash a dictionary attack could match;
/// - `btPt`, the battery reading: it drifts by itself and would change the hash without a configuration
///   change (the registry keeps it as the device's battery instead).
///
/// The hash covers what the read held: the common section and the sections the command asked for
/// (`plan`/`apply` read only the sections their profile manages), so hashes of reads made with different
/// sections differ [I].
public struct ConfigurationFingerprint: Sendable, Hashable {
  /// Sorted keys, numbers by value (`1000` and `1000.0` encode alike), sections keyed by their index.
  public let canonicalJSON: String

  public init(_ configuration: DeviceConfigView) {
    let canonical = Canonical(
      common: Self.kept(configuration.common), slots: Self.sections(configuration.slots),
      triggers: Self.sections(configuration.triggers), sensors: Self.sections(configuration.sensors),
      legacy: configuration.isLegacy)
    // Strings, integers, finite doubles and booleans in string-keyed objects: encoding cannot fail.
    canonicalJSON = String(decoding: (try? JSONEncoder.sorted.encode(canonical)) ?? Data(), as: UTF8.self)
  }

  /// Lower-case hex SHA-256 of `canonicalJSON`'s UTF-8 bytes.
  public var sha256: String {
    SHA256Digest.hash(Array(canonicalJSON.utf8)).map { String(format: "%02x", $0) }.joined()
  }

  /// Whether a key may name a password (`pwd`, `newPassword`, …); such keys are never kept.
  public static func isSecret(_ key: String) -> Bool {
    let k = key.lowercased()
    return k.contains("pwd") || k.contains("password")
  }

  /// Keys left out of the fingerprint besides secrets: readings that change by themselves.
  static let readings: Set<String> = ["btPt"]

  static func kept(_ values: [String: SettingValue]) -> [String: CanonicalValue] {
    var kept: [String: CanonicalValue] = [:]
    for (key, value) in values where !isSecret(key) && !readings.contains(key) { kept[key] = CanonicalValue(value) }
    return kept
  }

  static func sections(_ sections: [Int: [String: SettingValue]]) -> [String: [String: CanonicalValue]] {
    Dictionary(uniqueKeysWithValues: sections.map { (String($0.key), kept($0.value)) })
  }

  struct Canonical: Encodable {
    var common: [String: CanonicalValue]
    var slots: [String: [String: CanonicalValue]]
    var triggers: [String: [String: CanonicalValue]]
    var sensors: [String: [String: CanonicalValue]]
    var legacy: Bool
  }

  /// A `SettingValue` as JSON: whole numbers as integers, other finite numbers as numbers, the rest
  /// (text, and numbers JSON cannot spell) as strings.
  enum CanonicalValue: Encodable {
    case integer(Int)
    case number(Double)
    case text(String)

    init(_ value: SettingValue) {
      if let i = value.intValue {
        self = .integer(i)
      } else if let d = value.numericValue {
        self = d.isFinite ? .number(d) : .text(String(d))
      } else {
        self = .text(value.textValue ?? value.description)
      }
    }

    func encode(to encoder: any Encoder) throws {
      var c = encoder.singleValueContainer()
      switch self {
      case .integer(let i): try c.encode(i)
      case .number(let d): try c.encode(d)
      case .text(let s): try c.encode(s)
      }
    }
  }
}
