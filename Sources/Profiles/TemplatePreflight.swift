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
  public func problems(addresses: [String]) -> [String] {
    guard !profile.templatedStrings.isEmpty else { return [] }
    var failures: [(address: String, failure: DesiredResolver.Failure)] = []
    for address in addresses.map({ $0.uppercased() }).sorted() {
      let variables = profile.variables(for: address)
      if let commands = profile.profile.commands {
        if case .failure(let failure) = TextCommandResolver.resolve(commands, variables) {
          failures.append((address, failure))
        }
      } else if case .failure(let failure) = resolver.resolve(profile.profile.desired, variables) {
        failures.append((address, failure))
      }
    }
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
            message: "\(address): \(failure.message)",
            allowed: failure.allowed
          ).description)
      }
      if all.count > listedPerField {
        lines.append("\(profile.profile.file): \(path): and \(all.count - listedPerField) more devices")
      }
    }
    return lines
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
