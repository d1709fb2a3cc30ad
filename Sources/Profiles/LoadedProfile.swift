import JSON
import KBeacon

/// Everything `plan`/`apply` need to know before touching the radio: the decoded profile, its inventory,
/// and a check that every template can be filled for every inventory row. Pure: file contents come in
/// through `read`, so tests and the CLI share it.
public struct LoadedProfile: Sendable {
  public var profile: Profile
  public var inventory: Inventory?

  /// Reads the profile and its inventory (a path relative to the profile's folder), reporting every
  /// problem in both at once.
  public static func load(
    file: String, read: (String) throws -> [UInt8], urlCheck: @escaping FieldCheck.URLCheck
  ) throws(ProfileDiagnostics) -> LoadedProfile {
    let bytes: [UInt8]
    do { bytes = try read(file) } catch {
      throw ProfileDiagnostics([
        JSONDiagnostic(file: file, position: nil, path: .root, message: "cannot read the file: \(error)")
      ])
    }
    let (decoded, decodingProblems) = ProfileDecoder.decodeCollectingProblems(bytes, file: file, urlCheck: urlCheck)
    guard let profile = decoded else { throw ProfileDiagnostics(decodingProblems) }
    var inventory: Inventory? = nil
    var problems = decodingProblems
    if let name = profile.inventory {
      let path = name.hasPrefix("/") ? name : directory(of: file) + name
      do {
        inventory = try Inventory.parse(try read(path), file: path)
      } catch let error as ProfileDiagnostics {
        problems += error.all
      } catch {
        problems.append(
          JSONDiagnostic(
            file: file, position: nil, path: JSONPath.root.appending("inventory"),
            message: "cannot read the inventory \(path): \(error)"))
      }
    }
    let loaded = LoadedProfile(profile: profile, inventory: inventory)
    // An inventory the profile names but that could not be read has its own errors above; checking the
    // templates against no inventory would add a false "the profile names none" per template.
    if profile.inventory == nil || inventory != nil { problems += loaded.templateProblems() }
    if !problems.isEmpty { throw ProfileDiagnostics(problems) }
    return loaded
  }

  /// Templates naming variables that no inventory row (or no inventory at all) provides.
  func templateProblems() -> [JSONDiagnostic] {
    var problems: [JSONDiagnostic] = []
    let builtIns: Set<String> = ["address", "address_hex", "index"]
    // Every column some row has, for the messages (once, not per template: an inventory may have a million rows).
    let columns = builtIns.sorted() + Set((inventory?.rows ?? []).flatMap(\.variables.keys)).sorted()
    for (text, position, path) in templatedStrings {
      for name in Template(text).variables where !builtIns.contains(name) {
        guard let inventory else {
          problems.append(
            JSONDiagnostic(
              file: profile.file, position: position, path: path,
              message: "{{\(name)}} needs an inventory with a \"\(name)\" column, and the profile names none"))
          continue
        }
        let missing = inventory.rows.filter { $0.variables[name] == nil }.map(\.address)
        if !missing.isEmpty {
          let list =
            missing.prefix(3).joined(separator: ", ") + (missing.count > 3 ? " and \(missing.count - 3) more" : "")
          // A column only some rows have is named as such; an unknown one gets the closest known one, if any.
          let message =
            columns.contains(name)
            ? "{{\(name)}} has no value in the inventory for \(list)"
            : "{{\(name)}} is not an inventory column for \(list)"
              + (Suggestion.closest(to: name, in: columns).map { " — did you mean {{\($0)}}?" } ?? "")
          problems.append(
            JSONDiagnostic(
              file: profile.file, position: position, path: path, message: message,
              allowed: columns.map { "{{\($0)}}" }.joined(separator: ", ")))
        }
      }
      if Template(text).variables.contains("index"), inventory == nil, profile.select.addresses == nil {
        problems.append(
          JSONDiagnostic(
            file: profile.file, position: position, path: path,
            message: "{{index}} needs an inventory or select.addresses so each device keeps the same number across runs"
          ))
      }
    }
    return problems
  }

  /// Every string of the profile that holds placeholders, with where it is written: templated `desired`
  /// fields and each `commands` item's query, expect and set.
  var templatedStrings: [(text: String, position: SourcePosition?, path: JSONPath)] {
    var result: [(text: String, position: SourcePosition?, path: JSONPath)] = []
    for object in profile.desired.allObjects {
      for field in object.fields {
        if case .template(let text) = field.value { result.append((text, field.position, field.path)) }
      }
    }
    for command in profile.commands ?? [] {
      for (key, text) in command.templates where !Template(text).variables.isEmpty {
        result.append((text, command.positions[key], command.path.appending(key)))
      }
    }
    return result
  }

  /// The template variables of one device: its inventory row, or its place in `select.addresses`.
  public func variables(for address: String) -> TemplateVariables {
    let upper = address.uppercased()
    if let row = inventory?.row(for: upper) {
      return TemplateVariables(address: upper, index: row.index, inventory: row.variables)
    }
    let index = profile.select.position(of: upper)
    return TemplateVariables(address: upper, index: inventory == nil ? index : nil)
  }

  static func directory(of file: String) -> String {
    guard let slash = file.lastIndex(of: "/") else { return "" }
    return String(file[...slash])
  }
}
