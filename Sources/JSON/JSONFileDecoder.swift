import BeaconCore
import Foundation

/// Reads a `Decodable` value from a JSON file with the project's parser, so that every problem — broken
/// JSON, an unknown key, a wrong type, a value out of range — is one `JSONDiagnostic`: file, line, column,
/// JSON path, message, allowed values and, for a misspelt key, the closest known one. This replaces
/// Foundation's `JSONDecoder` for every file the tool reads, whose errors carried a coding path but no
/// position and no suggestion.
///
/// Values follow `JSONDecoder`'s default rules where a type relies on them: `URL` from a string, `Data`
/// from Base64, and `Date` either as seconds since 2001 (Foundation's default) or, with `.iso8601`, as
/// an RFC 3339 text.
public struct JSONFileDecoder: Sendable {
  /// How a `Date` is written in the file.
  public enum DateStyle: Sendable { case secondsSince2001, iso8601 }

  /// The name used in messages (the path as the operator gave it).
  public var file: String
  public var dates: DateStyle
  public var options: JSONParser.Options

  public init(file: String, dates: DateStyle = .secondsSince2001, options: JSONParser.Options = .file) {
    self.file = file
    self.dates = dates
    self.options = options
  }

  public func decode<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>) throws(JSONDiagnostic) -> T {
    try decode(type, from: try parse(bytes))
  }

  /// Decodes an already parsed tree (positions are those of the text it was parsed from).
  public func decode<T: Decodable>(_ type: T.Type, from root: SourceJSON) throws(JSONDiagnostic) -> T {
    if let (node, path) = Self.firstNumberBeyondDouble(in: root, path: .root),
      case .number(_, let text) = node.kind
    {
      throw JSONDiagnostic(file: file, position: node.position, path: path, message: "\(text.echoed) is out of range")
    }
    let decoder = JSONTreeDecoder(root, path: [], context: JSONTreeDecoder.Context(file: file, dates: dates))
    do {
      return try decoder.decodeValue(type)
    } catch let diagnostic as JSONDiagnostic {
      throw diagnostic
    } catch let error as DecodingError {
      throw Self.diagnostic(error, root: root, file: file)
    } catch {
      throw JSONDiagnostic(file: file, position: root.position, path: .root, message: "\(error)")
    }
  }

  /// The first number beyond `Double` (`7E2000`): no `Decodable` value takes one, and named here it is "out of
  /// range" at its place rather than "expected a string" where the type wanted another kind (hostile-input
  /// review, "Wording").
  static func firstNumberBeyondDouble(in json: SourceJSON, path: JSONPath) -> (SourceJSON, JSONPath)? {
    switch json.kind {
    case .number(let value, _) where !value.isFinite: return (json, path)
    case .object(let members):
      for member in members {
        if let found = firstNumberBeyondDouble(in: member.value, path: path.appending(member.key)) { return found }
      }
    case .array(let items):
      for (i, item) in items.enumerated() {
        if let found = firstNumberBeyondDouble(in: item, path: path.appending(i)) { return found }
      }
    default: break
    }
    return nil
  }

  /// A `DecodingError` a type's own `init(from:)` threw, placed at its coding path in the tree.
  static func diagnostic(_ error: DecodingError, root: SourceJSON, file: String) -> JSONDiagnostic {
    switch error {
    case .keyNotFound(let key, let context):
      let (node, path) = locate(context.codingPath, in: root)
      return JSONDiagnostic(
        file: file, position: node.position, path: path.appending(key.stringValue),
        message: "missing required key \"\(key.stringValue)\"")
    case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
      let (node, path) = locate(context.codingPath, in: root)
      return JSONDiagnostic(file: file, position: node.position, path: path, message: context.debugDescription)
    @unknown default:
      return JSONDiagnostic(file: file, position: root.position, path: .root, message: "\(error)")
    }
  }

  /// The deepest node of `root` along `codingPath`, and the JSON path of the whole coding path.
  static func locate(_ codingPath: [any CodingKey], in root: SourceJSON) -> (SourceJSON, JSONPath) {
    let path = JSONPath(codingPath.map { key in key.intValue.map { .index($0) } ?? .key(key.stringValue) })
    return (node(at: path, in: root), path)
  }

  /// The node at `path`, or the deepest one on the way there that exists.
  public static func node(at path: JSONPath, in root: SourceJSON) -> SourceJSON {
    var node = root
    for component in path.components {
      switch (component, node.kind) {
      case (.index(let i), .array(let items)) where items.indices.contains(i): node = items[i]
      case (.key(let k), .object):
        guard let member = node[k] else { return node }
        node = member
      default: return node
      }
    }
    return node
  }

  /// A problem a reader finds after decoding (a value the type took but the file's rules refuse), placed at
  /// `path` in the tree it was decoded from.
  public func problem(at path: JSONPath, in root: SourceJSON, _ message: String, allowed: String? = nil)
    -> JSONDiagnostic
  {
    JSONDiagnostic(
      file: file, position: Self.node(at: path, in: root).position, path: path, message: message, allowed: allowed)
  }

  /// Parses `bytes` as this decoder does, for a reader that decodes and then checks against the tree.
  public func parse(_ bytes: some Collection<UInt8>) throws(JSONDiagnostic) -> SourceJSON {
    do {
      return try JSONParser.parseWithPositions(Array(bytes), options: options)
    } catch {
      throw .syntax(error, file: file)
    }
  }
}

extension Decoder {
  /// Refuses an object key outside `known` so that a typo (`"adress"`) is an error naming its place, the
  /// keys allowed and the closest one, not a silently ignored setting. Read through `JSONFileDecoder` the
  /// error is a `JSONDiagnostic` at the key's line and column; through another decoder it is a
  /// `DecodingError` with the same message.
  public func rejectUnknownKeys(known: [String]) throws {
    if let tree = self as? JSONTreeDecoder {
      try tree.rejectUnknownKeys(known: known)
      return
    }
    let container = try self.container(keyedBy: JSONCodingKey.self)
    for key in container.allKeys where !known.contains(key.stringValue) {
      let diagnostic = JSONDiagnostic.unknownKey(key.stringValue, file: "", position: nil, in: .root, known: known)
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: codingPath + [key],
          debugDescription: diagnostic.message + " (allowed: \(diagnostic.allowed ?? ""))"))
    }
  }
}

/// A coding key for any object key or array index.
public struct JSONCodingKey: CodingKey, Sendable {
  public var stringValue: String
  public var intValue: Int?
  public init(stringValue: String) { self.stringValue = stringValue }
  public init(intValue: Int) {
    self.stringValue = "\(intValue)"
    self.intValue = intValue
  }
}
