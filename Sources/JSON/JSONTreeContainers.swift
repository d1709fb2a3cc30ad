/// The containers `JSONTreeDecoder` hands to a type's `init(from:)`. Each value is read by a child decoder at
/// its own node, so a wrong type is reported where it stands.
struct JSONTreeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let decoder: JSONTreeDecoder
  let members: [SourceJSON.Member]

  var codingPath: [any CodingKey] { decoder.codingPath }
  var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }

  func contains(_ key: Key) -> Bool { members.contains { $0.key == key.stringValue } }

  func child(_ key: Key) throws -> JSONTreeDecoder {
    guard let member = members.first(where: { $0.key == key.stringValue }) else {
      throw decoder.problem(
        "missing required key \"\(key.stringValue)\"", path: decoder.jsonPath.appending(key.stringValue))
    }
    return decoder.child(member.value, key)
  }

  func decodeNil(forKey key: Key) throws -> Bool { try child(key).isNull }
  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).decodeValue(type) }
  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key).decodeBool() }
  func decode(_ type: String.Type, forKey key: Key) throws -> String { try child(key).decodeString() }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try child(key).decodeDouble() }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try child(key).decodeDouble()) }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key).decodeInteger(type) }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try child(key).decodeInteger(type) }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try child(key).decodeInteger(type) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try child(key).decodeInteger(type) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try child(key).decodeInteger(type) }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try child(key).decodeInteger(type) }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try child(key).decodeInteger(type) }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try child(key).decodeInteger(type) }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try child(key).decodeInteger(type) }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try child(key).decodeInteger(type) }

  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
    -> KeyedDecodingContainer<NestedKey>
  { try child(key).container(keyedBy: type) }
  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try child(key).unkeyedContainer()
  }
  func superDecoder() throws -> any Decoder { try child(Key(stringValue: "super")!) }
  func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
}

struct JSONTreeUnkeyedContainer: UnkeyedDecodingContainer {
  let decoder: JSONTreeDecoder
  let items: [SourceJSON]
  var currentIndex = 0

  init(decoder: JSONTreeDecoder, items: [SourceJSON]) {
    self.decoder = decoder
    self.items = items
  }

  var codingPath: [any CodingKey] { decoder.codingPath }
  var count: Int? { items.count }
  var isAtEnd: Bool { currentIndex >= items.count }

  mutating func next() throws -> JSONTreeDecoder {
    guard !isAtEnd else { throw decoder.problem("expected more than \(items.count) items") }
    defer { currentIndex += 1 }
    return decoder.child(items[currentIndex], JSONCodingKey(intValue: currentIndex))
  }

  mutating func decodeNil() throws -> Bool {
    guard !isAtEnd, items[currentIndex].kind == .null else { return false }
    currentIndex += 1
    return true
  }

  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decodeValue(type) }
  mutating func decode(_ type: Bool.Type) throws -> Bool { try next().decodeBool() }
  mutating func decode(_ type: String.Type) throws -> String { try next().decodeString() }
  mutating func decode(_ type: Double.Type) throws -> Double { try next().decodeDouble() }
  mutating func decode(_ type: Float.Type) throws -> Float { Float(try next().decodeDouble()) }
  mutating func decode(_ type: Int.Type) throws -> Int { try next().decodeInteger(type) }
  mutating func decode(_ type: Int8.Type) throws -> Int8 { try next().decodeInteger(type) }
  mutating func decode(_ type: Int16.Type) throws -> Int16 { try next().decodeInteger(type) }
  mutating func decode(_ type: Int32.Type) throws -> Int32 { try next().decodeInteger(type) }
  mutating func decode(_ type: Int64.Type) throws -> Int64 { try next().decodeInteger(type) }
  mutating func decode(_ type: UInt.Type) throws -> UInt { try next().decodeInteger(type) }
  mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next().decodeInteger(type) }
  mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next().decodeInteger(type) }
  mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next().decodeInteger(type) }
  mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next().decodeInteger(type) }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
    -> KeyedDecodingContainer<NestedKey>
  { try next().container(keyedBy: type) }
  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
  mutating func superDecoder() throws -> any Decoder { try next() }
}

struct JSONTreeSingleValue: SingleValueDecodingContainer {
  let decoder: JSONTreeDecoder
  var codingPath: [any CodingKey] { decoder.codingPath }

  func decodeNil() -> Bool { decoder.isNull }
  func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type) }
  func decode(_ type: Bool.Type) throws -> Bool { try decoder.decodeBool() }
  func decode(_ type: String.Type) throws -> String { try decoder.decodeString() }
  func decode(_ type: Double.Type) throws -> Double { try decoder.decodeDouble() }
  func decode(_ type: Float.Type) throws -> Float { Float(try decoder.decodeDouble()) }
  func decode(_ type: Int.Type) throws -> Int { try decoder.decodeInteger(type) }
  func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decodeInteger(type) }
  func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decodeInteger(type) }
  func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decodeInteger(type) }
  func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decodeInteger(type) }
  func decode(_ type: UInt.Type) throws -> UInt { try decoder.decodeInteger(type) }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decodeInteger(type) }
  func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decodeInteger(type) }
  func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decodeInteger(type) }
  func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decodeInteger(type) }
}
