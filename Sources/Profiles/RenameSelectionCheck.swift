import JSON

/// A profile that selects devices by a name glob and also sets `name`: once applied, a device advertises
/// the new name, and if that name does not match the glob the next run no longer selects it — a second
/// `apply` finds "no devices" and checks nothing. `profile check` warns about it.
///
/// [I] A templated name is judged by filling it in for the devices the profile names (inventory rows or
/// `select.addresses`), else for a sample address (`00:00:00:00:00:00`, index 0); names that cannot be
/// filled in are left to the other checks.
public enum RenameSelectionCheck {
  public static func warning(_ loaded: LoadedProfile) -> String? {
    let profile = loaded.profile
    guard let glob = profile.select.name, let field = profile.desired.common["name"] else { return nil }
    let names: [String]
    switch field.value {
    case .text(let name):
      names = [name]
    case .template(let text):
      let addresses = profile.select.addresses ?? loaded.inventory?.rows.map(\.address) ?? ["00:00:00:00:00:00"]
      names = addresses.compactMap { address -> String? in
        var variables = loaded.variables(for: address)
        if variables.index == nil, profile.select.addresses == nil, loaded.inventory == nil { variables.index = 0 }
        return try? Template(text).render(variables).get()
      }
    default:
      return nil
    }
    guard let outside = names.first(where: { !Glob(glob).matches($0) }) else { return nil }
    return JSONDiagnostic(
      file: profile.file, position: field.position, path: field.path,
      message:
        "warning: this profile renames devices to names such as '\(outside)', which select.name '\(glob)' does not "
        + "match, so the next run will not select the devices it renamed; select them by address or inventory instead"
    ).description
  }
}
