import BeaconCore
import KBeacon

/// A number no fleet-file value can take, found before Foundation's decoder sees it (hostile-input review, "Wording"):
/// Foundation calls `7E2000` (beyond `Double`) "not valid JSON" with no path, or "expected a string" where
/// a string belongs, though the file is valid JSON and the number is simply out of range. The file is read
/// once more with the project's parser, which keeps every number's text and position, and the first
/// number whose value is beyond `Double` is named with its JSON path, line and column.
enum FleetFileNumbers {
  /// The refusal for the first number beyond `Double` in `bytes`, or nil when there is none (or the bytes
  /// are not JSON: Foundation's message stands then).
  static func outOfRange(_ bytes: [UInt8], file: String) -> FleetFileError? {
    guard let root = try? JSONParser.parseWithPositions(bytes, options: .file) else { return nil }
    guard let (text, path, position) = first(in: root, path: "") else { return nil }
    return FleetFileError(
      file: file, jsonPath: path.isEmpty ? nil : path,
      message:
        "\(text.echoed) is out of range (line \(position.line), column \(position.column): beyond any number a fleet file takes)"
    )
  }

  static func first(in json: SourceJSON, path: String) -> (String, String, SourcePosition)? {
    switch json.kind {
    case .number(let value, let text) where !value.isFinite:
      return (text, path, json.position)
    case .object(let members):
      for member in members {
        if let found = first(in: member.value, path: path.isEmpty ? member.key : path + "." + member.key) {
          return found
        }
      }
    case .array(let items):
      for (i, item) in items.enumerated() {
        if let found = first(in: item, path: path + "[\(i)]") { return found }
      }
    default:
      break
    }
    return nil
  }
}
