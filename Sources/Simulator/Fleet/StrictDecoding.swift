import JSON

extension Decoder {
  /// Throws when the object being decoded has a key outside `allowed`: fleet files reject unknown keys so
  /// a typo (`"intervalMS"`) is an error naming its place, the JSON path and the closest known key, not a
  /// silently ignored setting.
  func rejectUnknownKeys<Keys: CodingKey & CaseIterable>(_ keys: Keys.Type) throws {
    try rejectUnknownKeys(known: Keys.allCases.map(\.stringValue))
  }
}

/// Fails decoding at the current path with a message (a value is present but not acceptable).
func invalidValue(_ decoder: any Decoder, _ key: any CodingKey, _ message: String) -> DecodingError {
  .dataCorrupted(.init(codingPath: decoder.codingPath + [key], debugDescription: message))
}

extension KeyedDecodingContainer {
  /// Decodes a whole number and checks it fits `T`, failing at this key's path with the allowed range.
  /// (Foundation on Linux reports an out-of-range number as "not valid JSON" with no path, so narrow
  /// integer types are never decoded directly.)
  func decodeInteger<T: FixedWidthInteger>(_ type: T.Type, forKey key: Key) throws -> T {
    let value = try decode(Int.self, forKey: key)
    guard let narrowed = T(exactly: value) else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: codingPath + [key], debugDescription: "\(value) is outside \(T.min)…\(T.max)"))
    }
    return narrowed
  }

  func decodeIntegerIfPresent<T: FixedWidthInteger>(_ type: T.Type, forKey key: Key) throws -> T? {
    try contains(key) && !decodeNil(forKey: key) ? decodeInteger(type, forKey: key) : nil
  }
}
