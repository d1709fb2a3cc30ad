/// The containers `JSONValueEncoderCore` hands to a type's `encode(to:)`.
struct JSONValueKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let encoder: JSONValueEncoderCore
  var codingPath: [any CodingKey] { encoder.codingPath }

  private func put(_ key: Key, _ write: (JSONValueEncoderCore) throws -> Void) rethrows {
    let child = encoder.child(key)
    try write(child)
    encoder.node.set(key.stringValue, child.node)
  }

  mutating func encodeNil(forKey key: Key) { put(key) { $0.put(.null) } }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try put(key) { try $0.encodeValue(value) } }
  mutating func encode(_ value: Bool, forKey key: Key) { put(key) { $0.put(.bool(value)) } }
  mutating func encode(_ value: String, forKey key: Key) { put(key) { $0.put(.string(value)) } }
  mutating func encode(_ value: Double, forKey key: Key) throws { try put(key) { try $0.put(value) } }
  mutating func encode(_ value: Float, forKey key: Key) throws { try put(key) { try $0.put(float: value) } }
  mutating func encode(_ value: Int, forKey key: Key) { put(key) { $0.put(value) } }
  mutating func encode(_ value: Int8, forKey key: Key) { put(key) { $0.put(value) } }
  mutating func encode(_ value: Int16, forKey key: Key) { put(key) { $0.put(value) } }
  mutating func encode(_ value: Int32, forKey key: Key) { put(key) { $0.put(value) } }
  mutating func encode(_ value: Int64, forKey key: Key) { put(key) { $0.put(value) } }
  mutating func encode(_ value: UInt, forKey key: Key) { put(key) { $0.put(value) } }
  mutating func encode(_ value: UInt8, forKey key: Key) { put(key) { $0.put(value) } }
  mutating func encode(_ value: UInt16, forKey key: Key) { put(key) { $0.put(value) } }
  mutating func encode(_ value: UInt32, forKey key: Key) { put(key) { $0.put(value) } }
  mutating func encode(_ value: UInt64, forKey key: Key) { put(key) { $0.put(value) } }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
    -> KeyedEncodingContainer<NestedKey>
  {
    let child = encoder.child(key)
    encoder.node.set(key.stringValue, child.node)
    return child.container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    let child = encoder.child(key)
    encoder.node.set(key.stringValue, child.node)
    return child.unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }
  mutating func superEncoder(forKey key: Key) -> any Encoder {
    let child = encoder.child(key)
    encoder.node.set(key.stringValue, child.node)
    return child
  }
}

struct JSONValueUnkeyedContainer: UnkeyedEncodingContainer {
  let encoder: JSONValueEncoderCore
  var codingPath: [any CodingKey] { encoder.codingPath }
  var count: Int {
    if case .array(let items) = encoder.node.content { return items.count }
    return 0
  }

  private func next() -> JSONValueEncoderCore {
    let child = encoder.child(JSONCodingKey(intValue: count))
    encoder.node.append(child.node)
    return child
  }

  mutating func encodeNil() { next().put(.null) }
  mutating func encode<T: Encodable>(_ value: T) throws { try next().encodeValue(value) }
  mutating func encode(_ value: Bool) { next().put(.bool(value)) }
  mutating func encode(_ value: String) { next().put(.string(value)) }
  mutating func encode(_ value: Double) throws { try next().put(value) }
  mutating func encode(_ value: Float) throws { try next().put(float: value) }
  mutating func encode(_ value: Int) { next().put(value) }
  mutating func encode(_ value: Int8) { next().put(value) }
  mutating func encode(_ value: Int16) { next().put(value) }
  mutating func encode(_ value: Int32) { next().put(value) }
  mutating func encode(_ value: Int64) { next().put(value) }
  mutating func encode(_ value: UInt) { next().put(value) }
  mutating func encode(_ value: UInt8) { next().put(value) }
  mutating func encode(_ value: UInt16) { next().put(value) }
  mutating func encode(_ value: UInt32) { next().put(value) }
  mutating func encode(_ value: UInt64) { next().put(value) }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  { next().container(keyedBy: keyType) }
  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { next().unkeyedContainer() }
  mutating func superEncoder() -> any Encoder { next() }
}

struct JSONValueSingleValue: SingleValueEncodingContainer {
  let encoder: JSONValueEncoderCore
  var codingPath: [any CodingKey] { encoder.codingPath }

  mutating func encodeNil() { encoder.put(.null) }
  mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encodeValue(value) }
  mutating func encode(_ value: Bool) { encoder.put(.bool(value)) }
  mutating func encode(_ value: String) { encoder.put(.string(value)) }
  mutating func encode(_ value: Double) throws { try encoder.put(value) }
  mutating func encode(_ value: Float) throws { try encoder.put(float: value) }
  mutating func encode(_ value: Int) { encoder.put(value) }
  mutating func encode(_ value: Int8) { encoder.put(value) }
  mutating func encode(_ value: Int16) { encoder.put(value) }
  mutating func encode(_ value: Int32) { encoder.put(value) }
  mutating func encode(_ value: Int64) { encoder.put(value) }
  mutating func encode(_ value: UInt) { encoder.put(value) }
  mutating func encode(_ value: UInt8) { encoder.put(value) }
  mutating func encode(_ value: UInt16) { encoder.put(value) }
  mutating func encode(_ value: UInt32) { encoder.put(value) }
  mutating func encode(_ value: UInt64) { encoder.put(value) }
}
