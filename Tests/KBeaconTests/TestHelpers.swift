import BeaconCore
import JSON

@testable import KBeacon

/// Bytes from spaced hex text (test vectors read like the spec's).
func hex(_ text: String) -> [UInt8] {
  guard let bytes = Hex.decode(text) else { fatalError("bad hex in test: \(text)") }
  return bytes
}

func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }

func json(_ text: String) throws -> JSONObject {
  guard let object = try JSONParser.parse(text).objectValue else { throw KBeaconError.jsonError("not an object") }
  return object
}
