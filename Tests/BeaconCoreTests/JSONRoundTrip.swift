import BeaconCore
import Foundation

/// Compact sorted JSON for assertions on the exact shape.
enum JSONRoundTrip {
  static func encode(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
  }

  static func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
    try JSONDecoder().decode(type, from: Data(json.utf8))
  }
}

/// A malformed test vector (a typo in a test, not a failure of the code under test).
struct BadVector: Error { var hex: String }

/// The bytes of a hex test vector; throws (failing the test) when the vector itself is not hex.
func vector(_ hex: String) throws -> [UInt8] {
  guard let bytes = Hex.decode(hex) else { throw BadVector(hex: hex) }
  return bytes
}
