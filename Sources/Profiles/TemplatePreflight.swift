import JSON
import KBeacon

/// Every value that depends only on the profile, its inventory and a device's address — the templates of
/// `desired`, or of `commands` (`TextCommandResolver`) —
/// filled in and checked for each device before any connection, so a value no device can take (a name
/// over 18 characters once `{{address_hex}}` is filled in) stops the run before the radio work instead of
/// failing each device after its link is open. Each problem names the device and the field's place in
/// the profile: `site.json:4:13: $.desired.name: DD:34:02:06:D1:01: "…" is 23 characters (allowed: …)`.
public struct TemplatePreflight: Sendable {
  public var profile: LoadedProfile
  public var resolver: DesiredResolver
  /// Devices listed per field before the rest are counted [I: 5; a thousand identical lines help no one].
  public var listedPerField = 5

  public init(profile: LoadedProfile, resolver: DesiredResolver) {
    self.profile = profile
    self.resolver = resolver
  }

  /// The problems for these addresses, one line each, in address order per field (empty: all resolve).
  public func problems(addresses: [String]) -> [String] { lines(failures(addresses: addresses)) }

  /// `problems` with the closing line a profile's own errors have (`ProfileDiagnostics`), nil when there are
  /// none: `N values filled in for the devices cannot be used; nothing was sent to any device`.
  public func report(addresses: [String]) -> String? {
    let failures = failures(addresses: addresses)
    guard !failures.isEmpty else { return nil }
    let n = failures.count
    return lines(failures).joined(separator: "\n")
      + "\n\(n) value\(n == 1 ? "" : "s") filled in for the devices cannot be used; nothing was sent to any device"
  }

  /// Every field of every device that cannot be filled in or checked, by address.
  func failures(addresses: [String]) -> [(address: String, failure: DesiredResolver.Failure)] {
    guard !profile.templatedStrings.isEmpty else { return [] }
    var failures: [(address: String, failure: DesiredResolver.Failure)] = []
    for address in addresses.map({ $0.uppercased() }).sorted() {
      let variables = profile.variables(for: address)
      if let commands = profile.profile.commands {
        for failure in TextCommandResolver.failures(commands, variables) { failures.append((address, failure)) }
      } else {
        for failure in resolver.failures(profile.profile.desired, variables) { failures.append((address, failure)) }
      }
    }
    return failures
  }

  /// One line per failure, grouped by field in the order fields first fail, at most `listedPerField` each.
  func lines(_ failures: [(address: String, failure: DesiredResolver.Failure)]) -> [String] {
    var lines: [String] = []
    var order: [JSONPath] = []
    var byPath: [JSONPath: [(address: String, failure: DesiredResolver.Failure)]] = [:]
    for f in failures {
      if byPath[f.failure.path] == nil { order.append(f.failure.path) }
      byPath[f.failure.path, default: []].append(f)
    }
    for path in order {
      let all = byPath[path] ?? []
      for (address, failure) in all.prefix(listedPerField) {
        lines.append(
          JSONDiagnostic(
            file: profile.profile.file, position: position(of: path), path: path,
            message: "\(address)\(row(of: address)): \(failure.message)",
            allowed: failure.allowed
          ).description)
      }
      if all.count > listedPerField {
        lines.append("\(profile.profile.file): \(path): and \(all.count - listedPerField) more devices")
      }
    }
    return lines
  }

  /// Where `address`'s inventory row is, for a message: ` (inventory.csv line 4)`; empty without one.
  func row(of address: String) -> String {
    guard let name = profile.profile.inventory, let line = profile.inventory?.row(for: address)?.position?.line
    else { return "" }
    return " (\(name) line \(line))"
  }

  /// Where the field at `path` is written in the profile.
  func position(of path: JSONPath) -> SourcePosition? {
    if let written = profile.templatedStrings.first(where: { $0.path == path }) { return written.position }
    for object in profile.profile.desired.allObjects {
      if let field = object.fields.first(where: { $0.path == path }) { return field.position }
    }
    return nil
  }
}
