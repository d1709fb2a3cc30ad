import BeaconCore
import JSON
import KBeacon

/// Decodes a profile file, reporting **all** problems at once — syntax, unknown keys (with a suggestion),
/// wrong types, out-of-range values, malformed UUIDs/URLs, conflicting slots — each with file, line,
/// column, JSON path and the allowed values. Nothing here touches a device.
public struct ProfileDecoder {
  var file: String
  var urlCheck: FieldCheck.URLCheck
  var diagnostics: [JSONDiagnostic] = []

  /// - Parameters:
  ///   - file: the name used in messages (the path as the operator gave it).
  ///   - urlCheck: the Eddystone URL encodability check (see `FieldCheck.URLCheck`).
  public static func decode(
    _ bytes: [UInt8], file: String, urlCheck: @escaping FieldCheck.URLCheck
  ) throws(ProfileDiagnostics) -> Profile {
    let (profile, diagnostics) = decodeCollectingProblems(bytes, file: file, urlCheck: urlCheck)
    guard let profile, diagnostics.isEmpty else { throw ProfileDiagnostics(diagnostics) }
    return profile
  }

  /// Decodes as far as possible: the profile (nil only when the file is not JSON) and every problem, so
  /// later checks (inventory, templates) can add theirs to the same report.
  public static func decodeCollectingProblems(
    _ bytes: [UInt8], file: String, urlCheck: @escaping FieldCheck.URLCheck
  ) -> (Profile?, [JSONDiagnostic]) {
    var decoder = ProfileDecoder(file: file, urlCheck: urlCheck)
    let json: SourceJSON
    do {
      json = try JSONParser.parseWithPositions(bytes)
    } catch {
      return (nil, [.syntax(error, file: file)])
    }
    let profile = decoder.profile(json)
    return (profile, decoder.diagnostics)
  }

  mutating func report(_ at: SourceJSON?, _ path: JSONPath, _ message: String, allowed: String? = nil) {
    diagnostics.append(
      JSONDiagnostic(file: file, position: at?.position, path: path, message: message, allowed: allowed))
  }

  /// The object's members, after reporting keys not in `known` (and duplicates). nil if not an object.
  mutating func members(_ json: SourceJSON, _ path: JSONPath, known: [String]) -> [String: SourceJSON]? {
    guard case .object(let list) = json.kind else {
      report(json, path, "expected an object, found \(json.typeName)")
      return nil
    }
    var result: [String: SourceJSON] = [:]
    for m in list {
      let at = SourceJSON(kind: .null, position: m.keyPosition)
      if result[m.key] != nil {
        report(at, path.appending(m.key), "key \"\(m.key.echoed)\" appears twice")
      } else if !known.contains(m.key) {
        diagnostics.append(.unknownKey(m.key, file: file, position: m.keyPosition, in: path, known: known))
      } else {
        result[m.key] = m.value
      }
    }
    return result
  }

  mutating func string(_ json: SourceJSON?, _ path: JSONPath) -> String? {
    guard let json else { return nil }
    guard case .string(let s) = json.kind else {
      report(json, path, "expected a string, found \(json.typeName)")
      return nil
    }
    return s
  }

  mutating func strings(_ json: SourceJSON?, _ path: JSONPath) -> [String]? {
    guard let json else { return nil }
    if case .string(let s) = json.kind { return [s] }
    guard case .array(let items) = json.kind else {
      report(json, path, "expected an array of strings, found \(json.typeName)")
      return nil
    }
    return items.enumerated().compactMap { i, item in string(item, path.appending(i)) }
  }

  mutating func integer(_ json: SourceJSON?, _ path: JSONPath, _ range: ClosedRange<Int>) -> Int? {
    guard let json else { return nil }
    guard case .number(let d, let text) = json.kind, d.rounded() == d else {
      report(
        json, path, "expected an integer, found \(json.typeName)", allowed: "\(range.lowerBound)…\(range.upperBound)")
      return nil
    }
    // ±∞ (a text beyond Double) and integers beyond Int are out of range like any other.
    guard let i = Int(exactly: d), range.contains(i) else {
      report(json, path, "\(text.echoed) is out of range", allowed: "\(range.lowerBound)…\(range.upperBound)")
      return nil
    }
    return i
  }

  mutating func profile(_ json: SourceJSON) -> Profile {
    var profile = Profile(file: file)
    let root = JSONPath.root
    guard let m = members(json, root, known: ProfileKeys.root) else { return profile }
    if let v = m["version"] {
      if let version = integer(v, root.appending("version"), Int.min...Int.max), version != Profile.currentVersion {
        report(
          v, root.appending("version"), "unsupported profile version \(version)", allowed: "\(Profile.currentVersion)")
      }
    } else {
      report(json, root, "missing \"version\"", allowed: "\(Profile.currentVersion)")
    }
    profile.description = string(m["description"], root.appending("description"))
    if let s = m["select"] { profile.select = selection(s, root.appending("select")) }
    profile.inventory = string(m["inventory"], root.appending("inventory"))
    if let a = m["auth"] { profile.auth = auth(a, root.appending("auth")) }
    if let u = m["allowUnreachable"] {
      if case .bool(let allowed) = u.kind {
        profile.allowUnreachable = allowed
      } else {
        report(
          u, root.appending("allowUnreachable"), "expected true or false, found \(u.typeName)", allowed: "true, false")
      }
    }
    if let c = m["commands"] {
      profile.commands = commands(c, root.appending("commands"))
      checkCommandsProfile(m)
    } else if let d = m["desired"] {
      profile.desired = desired(d, root.appending("desired"))
    } else {
      report(
        json, root,
        "missing \"desired\" (a KBeacon's settings) or \"commands\" (a text-stream device's): the profile must say what the devices should be"
      )
    }
    return profile
  }

  mutating func selection(_ json: SourceJSON, _ path: JSONPath) -> Selection {
    var s = Selection()
    guard let m = members(json, path, known: ProfileKeys.select) else { return s }
    if let list = strings(m["addresses"], path.appending("addresses")) {
      for (i, a) in list.enumerated() where BluetoothAddressText.isValid(a) == false {
        report(
          m["addresses"].flatMap { j in if case .array(let items) = j.kind, i < items.count { items[i] } else { j } },
          path.appending("addresses").appending(i), "\"\(a.echoed)\" is not a Bluetooth address",
          allowed: "AA:BB:CC:DD:EE:FF")
      }
      s.addresses = list
    }
    s.name = string(m["name"], path.appending("name"))
    s.models = strings(m["models"], path.appending("models"))
    if let text = string(m["firmware"], path.appending("firmware")) {
      s.firmware = FirmwareRange(text)
      if s.firmware == nil {
        report(
          m["firmware"], path.appending("firmware"), "\"\(text.echoed)\" is not a version range",
          allowed: "comparisons such as \">=5.20, <6\"")
      }
    }
    s.minimumRSSI = integer(m["minRSSI"], path.appending("minRSSI"), -127...20)
    s.tags = strings(m["tags"], path.appending("tags"))
    return s
  }

  mutating func auth(_ json: SourceJSON, _ path: JSONPath) -> Auth {
    var a = Auth()
    guard let m = members(json, path, known: ProfileKeys.auth) else { return a }
    func source(_ env: String, _ file: String, _ me: inout ProfileDecoder) -> SecretSource? {
      let e = me.string(m[env], path.appending(env))
      let f = me.string(m[file], path.appending(file))
      if e != nil, f != nil {
        me.report(m[file], path.appending(file), "give either \"\(env)\" or \"\(file)\", not both")
      }
      if let e, !EnvironmentVariableName.isValid(e) {
        // Never echoed: what is not a variable's name may be the password itself, pasted in its place.
        me.report(
          m[env], path.appending(env),
          "is not an environment variable's name (the value is not shown: it may be the password itself)",
          allowed: EnvironmentVariableName.allowed)
        return nil
      }
      if let e { return .environment(e) }
      return f.map { .file($0) }
    }
    a.password = source("passwordEnv", "passwordFile", &self) ?? .factoryDefault
    a.newPassword = source("newPasswordEnv", "newPasswordFile", &self)
    return a
  }
}

/// Address syntax in profiles and inventories: the colon form `AA:BB:CC:DD:EE:FF` (the schema's
/// pattern), parsed by BeaconCore's `BluetoothAddress` so that only ASCII hex digits pass (Swift's
/// `isHexDigit` also accepts full-width digits such as `Ａ`).
enum BluetoothAddressText {
  /// `AA:BB:CC:DD:EE:FF`: six pairs of hex digits (either case) joined by colons. Checked byte by byte, since
  /// an inventory of 1M rows checks 1M addresses (`BluetoothAddress(_:)`, which also takes other spellings,
  /// was a quarter of `profile check`'s time).
  static func isValid(_ s: String) -> Bool {
    var count = 0
    for (i, b) in s.utf8.enumerated() {
      count += 1
      guard count <= 17 else { return false }
      if i % 3 == 2 {
        guard b == UInt8(ascii: ":") else { return false }
      } else {
        guard (0x30...0x39).contains(b) || (0x41...0x46).contains(b) || (0x61...0x66).contains(b) else { return false }
      }
    }
    return count == 17
  }
}
