import JSON
import Profiles

/// Decodes the Info Manager's JSON answers (docs/protocols/info-manager.md, "Objects") with the project's JSON parser, so
/// a malformed body is refused with its source (the URL), line:column, JSON path and the allowed values.
/// Pure: bytes in.
///
/// Cloud Endpoints conventions followed [I]: a collection is `{"items": [...]}` and an empty one may omit
/// `items`; 64-bit IDs may come as strings or numbers; absent booleans are false; members we do not know
/// are ignored. An output info type outside `OutputInfoType.known` is kept as sent (the caller warns about
/// it): refusing it failed the whole resolve on one new content type.
public enum InfoManagerResponses {
  /// `InfoPointCollection` (the answer of `getBlukiisInfo`).
  public static func infoPoints(_ bytes: [UInt8], source: String) throws(InfoManagerResponseError) -> [InfoPoint] {
    let reader = Reader(source: source)
    let root = try reader.root(bytes, expecting: "an InfoPointCollection object {\"items\": [ … ]}")
    guard let items = root["items"] else { return [] }
    guard case .array(let elements) = items.kind else {
      throw reader.fail(
        items, JSONPath.root.appending("items"), "expected an array of info points, found \(items.typeName)")
    }
    var points: [InfoPoint] = []
    for (index, element) in elements.enumerated() {
      points.append(try reader.infoPoint(element, JSONPath.root.appending("items").appending(index)))
    }
    return points
  }

  /// `News{text}` (the answer of `getNews`); an absent or null text is no news ("").
  public static func newsText(_ bytes: [UInt8], source: String) throws(InfoManagerResponseError) -> String {
    let reader = Reader(source: source)
    let root = try reader.root(bytes, expecting: "a News object {\"text\": \"…\"}")
    return try reader.string(root, "text", .root) ?? ""
  }

  /// `{token}` (the answer of `getToken`).
  public static func token(_ bytes: [UInt8], source: String) throws(InfoManagerResponseError) -> String {
    let reader = Reader(source: source)
    let root = try reader.root(bytes, expecting: "an object {\"token\": \"…\"}")
    guard let token = try reader.string(root, "token", .root), !token.isEmpty else {
      throw reader.fail(root, .root, "missing \"token\" (a non-empty string)")
    }
    return token
  }
}

/// Why an Info Manager answer was refused: where (source, line:column, JSON path) and what is wrong.
public struct InfoManagerResponseError: Error, Sendable, Hashable, CustomStringConvertible {
  public var source: String
  public var position: SourcePosition?
  public var path: JSONPath
  public var message: String

  public init(source: String, position: SourcePosition?, path: JSONPath, message: String) {
    self.source = source
    self.position = position
    self.path = path
    self.message = message
  }

  public var description: String { "\(source)\(position.map { ":\($0)" } ?? ""): \(path): \(message)" }
}

/// The member readers behind `InfoManagerResponses`.
private struct Reader {
  var source: String

  func root(_ bytes: [UInt8], expecting: String) throws(InfoManagerResponseError) -> SourceJSON {
    let root: SourceJSON
    do {
      root = try JSONParser.parseWithPositions(bytes, options: .wire)
    } catch {
      throw InfoManagerResponseError(source: source, position: error.position, path: .root, message: error.message)
    }
    guard case .object = root.kind else { throw fail(root, .root, "expected \(expecting), found \(root.typeName)") }
    return root
  }

  func infoPoint(_ json: SourceJSON, _ path: JSONPath) throws(InfoManagerResponseError) -> InfoPoint {
    guard case .object = json.kind else {
      throw fail(json, path, "expected an info point object {id, name, …}, found \(json.typeName)")
    }
    guard let id = try identifier(json, "id", path) else {
      throw fail(json, path, "missing \"id\" (a string or an integer)")
    }
    var point = InfoPoint(
      id: id, blukiiId: try identifier(json, "blukiiId", path), name: try string(json, "name", path),
      description: try string(json, "description", path), deactivated: try bool(json, "deactivated", path),
      deactivatedByAdmin: try bool(json, "deactivatedByAdmin", path),
      notificationText: try string(json, "notificationText", path), imageWebUrl: try string(json, "imageWebUrl", path))
    if let infos = json["outputInfos"] {
      let infosPath = path.appending("outputInfos")
      switch infos.kind {
      case .null: break
      case .array(let elements):
        for (index, element) in elements.enumerated() {
          point.outputInfos.append(try outputInfo(element, infosPath.appending(index)))
        }
      default: throw fail(infos, infosPath, "expected an array of output infos, found \(infos.typeName)")
      }
    }
    return point
  }

  func outputInfo(_ json: SourceJSON, _ path: JSONPath) throws(InfoManagerResponseError) -> OutputInfo {
    guard case .object = json.kind else {
      throw fail(json, path, "expected an output info object {type, …}, found \(json.typeName)")
    }
    guard let typeText = try string(json, "type", path) else {
      throw fail(json, path, "missing \"type\" (one of \(OutputInfoType.allowed))")
    }
    guard !typeText.isEmpty, typeText.count <= 40,
      typeText.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
    else {
      throw fail(
        json["type"]!, path.appending("type"),
        "\"\(typeText.prefix(40))\" is not an output info type (\(OutputInfoType.allowed), or another word)")
    }
    let type = OutputInfoType(rawValue: typeText)
    return OutputInfo(
      type: type, title: try string(json, "title", path), url: try string(json, "url", path),
      languageCode: try string(json, "languageCode", path)?.lowercased(),
      audioFileUrl: try string(json, "audioFileUrl", path),
      textToSpeech: try string(json, "textToSpeech", path))
  }

  /// A string member; absent or null is nil.
  func string(_ json: SourceJSON, _ key: String, _ path: JSONPath) throws(InfoManagerResponseError) -> String? {
    guard let value = json[key] else { return nil }
    switch value.kind {
    case .null: return nil
    case .string(let text): return text
    default: throw fail(value, path.appending(key), "expected a string, found \(value.typeName)")
    }
  }

  /// An ID: a string, or an integer kept as its text (Cloud Endpoints sends int64 either way).
  func identifier(_ json: SourceJSON, _ key: String, _ path: JSONPath) throws(InfoManagerResponseError) -> String? {
    guard let value = json[key] else { return nil }
    switch value.kind {
    case .null: return nil
    case .string(let text) where !text.isEmpty: return text
    case .number(let n, let text) where n.isFinite && n.rounded() == n && !text.contains(where: { ".eE".contains($0) }):
      return text
    default:
      throw fail(
        value, path.appending(key), "expected an ID (a non-empty string or an integer), found \(value.typeName)")
    }
  }

  func bool(_ json: SourceJSON, _ key: String, _ path: JSONPath) throws(InfoManagerResponseError) -> Bool {
    guard let value = json[key] else { return false }
    switch value.kind {
    case .null: return false
    case .bool(let flag): return flag
    default: throw fail(value, path.appending(key), "expected true or false, found \(value.typeName)")
    }
  }

  func fail(_ json: SourceJSON, _ path: JSONPath, _ message: String) -> InfoManagerResponseError {
    InfoManagerResponseError(source: source, position: json.position, path: path, message: message)
  }
}
