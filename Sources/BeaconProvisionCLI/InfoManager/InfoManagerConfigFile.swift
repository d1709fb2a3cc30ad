import Foundation
import InfoManager
import JSON
import KBeacon
import Profiles

/// The `"infoManager"` object of the config file (`~/.config/beacon-provision/config.json`):
/// `{"url": "https://…", "apiKey": "…", "user": "…", "password": "…", "cacheTimeout": 180}`, every member
/// optional. A member of the wrong type, or one we do not know (a typo would silently do nothing), is an
/// error naming the file, line:column and JSON path.
struct InfoManagerConfigFile: Equatable {
  var url: String?
  var apiKey: String?
  var user: String?
  var password: String?
  var cacheTimeout: Double?

  static let members = ["url", "apiKey", "user", "password", "cacheTimeout"]

  /// The object in the file at `path`; empty when the file or the object is absent.
  static func read(path: String) throws -> InfoManagerConfigFile {
    guard let data = try InputFile.readIfPresent(path, limit: .config) else { return InfoManagerConfigFile() }
    return try decode([UInt8](data), path: path)
  }

  static func decode(_ bytes: [UInt8], path: String) throws -> InfoManagerConfigFile {
    let root: SourceJSON
    do {
      root = try JSONParser.parseWithPositions(bytes, options: .file)
    } catch {
      throw CLIFailure("\(path):\(error.description)")
    }
    guard case .object = root.kind else {
      throw CLIFailure(
        "\(path):\(root.position): $: expected an object like {\"infoManager\": {\"url\": \"https://…\"}}")
    }
    guard let object = root["infoManager"] else { return InfoManagerConfigFile() }
    let base = JSONPath.root.appending("infoManager")
    guard case .object(let members) = object.kind else {
      throw CLIFailure(
        "\(path):\(object.position): \(base): expected an object {\(Self.members.joined(separator: ", "))}, found \(object.typeName)"
      )
    }
    var config = InfoManagerConfigFile()
    for member in members {
      let place = "\(path):\(member.value.position): \(base.appending(member.key))"
      switch (member.key, member.value.kind) {
      case ("cacheTimeout", .number(let n, _)) where n.isFinite && n > 0 && n <= ResolveCache.longestTimeout:
        config.cacheTimeout = n
      case ("cacheTimeout", _):
        throw CLIFailure(
          "\(place): expected seconds (a number above 0, at most \(Int(ResolveCache.longestTimeout))), found \(member.value.typeName)"
        )
      case (let key, .string(let text)) where Self.members.contains(key):
        switch key {
        case "url": config.url = text
        case "apiKey": config.apiKey = text
        case "user": config.user = text
        default: config.password = text
        }
      case (let key, _) where Self.members.contains(key):
        throw CLIFailure("\(place): expected a string, found \(member.value.typeName)")
      default:
        throw CLIFailure("\(place): unknown member (allowed: \(Self.members.joined(separator: ", ")))")
      }
    }
    return config
  }
}
