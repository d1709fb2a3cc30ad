import Foundation

/// Why a fleet file could not be used: one line naming the file, the JSON path and what is wrong, e.g.
/// `fleet.json: devices[2].iBeacon.major: expected a number from 0 to 65535`.
public struct FleetFileError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The file, or "fleet" for in-memory data.
  public var file: String
  /// `devices[2].iBeacon.major`, or nil for whole-file problems (unreadable, not JSON).
  public var jsonPath: String?
  public var message: String

  public init(file: String, jsonPath: String?, message: String) {
    self.file = file
    self.jsonPath = jsonPath
    self.message = message
  }

  public var description: String {
    "\(file): " + (jsonPath.map { "\($0): " } ?? "") + message
  }

  /// Translates a `DecodingError` into a path and a sentence.
  init(file: String, decoding error: DecodingError) {
    switch error {
    case .keyNotFound(let key, let context):
      self.init(file: file, jsonPath: formatJSONPath(context.codingPath + [key]), message: "missing required key")
    case .typeMismatch(let type, let context):
      self.init(file: file, jsonPath: formatJSONPath(context.codingPath), message: "expected \(Self.describe(type))")
    case .valueNotFound(let type, let context):
      self.init(
        file: file, jsonPath: formatJSONPath(context.codingPath), message: "expected \(Self.describe(type)), found null"
      )
    case .dataCorrupted(let context):
      if context.codingPath.isEmpty {
        let detail = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
        self.init(file: file, jsonPath: nil, message: "not valid JSON" + (detail.map { " (\($0))" } ?? ""))
      } else {
        self.init(file: file, jsonPath: formatJSONPath(context.codingPath), message: context.debugDescription)
      }
    @unknown default:
      self.init(file: file, jsonPath: nil, message: "\(error)")
    }
  }

  private static func describe(_ type: Any.Type) -> String {
    switch type {
    case is String.Type: "a string"
    case is Bool.Type: "true or false"
    case is Int.Type, is Int8.Type, is UInt8.Type, is UInt16.Type, is UInt32.Type, is Int16.Type:
      "a whole number in range"
    case is Double.Type: "a number"
    default: "\(type)".hasPrefix("Array") ? "an array" : "an object"
    }
  }
}
