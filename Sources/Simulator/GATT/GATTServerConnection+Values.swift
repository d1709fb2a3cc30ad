import BeaconCore

/// Reading and writing attribute values with permission checks (Core v5.4 Vol 3 Part F §3.4.4–§3.4.6,
/// Part G §3.3).
extension GATTServerConnection {
  /// The whole value of an attribute, or the ATT error a read of it gets.
  func readValue(_ a: GATTAttributeTable.Attribute) async throws -> [UInt8] {
    switch a.role {
    case .service(let s, _):
      return s.uuid.attBytes
    case .include(let start, let end, let uuid):
      return GATTInclude.value(startHandle: start, endHandle: end, uuid: uuid)
    case .declaration(let c, let valueHandle):
      return [c.properties.rawValue, UInt8(valueHandle & 0xFF), UInt8(valueHandle >> 8)] + c.uuid.attBytes
    case .value(let c):
      guard c.properties.contains(.read) else { throw ATTFailure(.readNotPermitted, a.handle) }
      if let onRead = c.onRead { return try await runHandler(a.handle) { try await onRead(self) } }
      return await server.storedValue(a.handle) ?? []
    case .cccd(_, let valueHandle):
      let bits = cccd[valueHandle] ?? 0
      return [UInt8(bits & 0xFF), UInt8(bits >> 8)]
    case .descriptor:
      return await server.storedValue(a.handle) ?? []
    }
  }

  /// Read Blob (§3.4.4.5): offset past the end is Invalid Offset; offset equal to the length gives an empty
  /// part. [Choice] A value that fits whole in one Read Response (≤ ATT_MTU − 1) answers a blob read at a
  /// non-zero offset with Attribute Not Long (the spec's "may"), which clients take as the end.
  func readBlob(_ r: ATTReadBlobRequest) async throws -> ATTReadBlobResponse {
    let value = try await readValue(try attribute(r.handle))
    let offset = Int(r.offset)
    guard offset <= value.count else { throw ATTFailure(.invalidOffset, r.handle) }
    if offset > 0 && value.count <= mtu - 1 { throw ATTFailure(.attributeNotLong, r.handle) }
    return ATTReadBlobResponse(partValue: Array(value[offset...].prefix(mtu - 1)))
  }

  /// Whether the client may write the attribute this way; throws the ATT error otherwise.
  func checkWritable(_ a: GATTAttributeTable.Attribute, kind: GATTWrite.Kind) throws {
    switch a.role {
    case .value(let c):
      let needed: GATTCharacteristicProperties = kind == .command ? .writeWithoutResponse : .write
      guard c.properties.contains(needed) else { throw ATTFailure(.writeNotPermitted, a.handle) }
    case .cccd:
      guard kind != .command else { throw ATTFailure(.writeNotPermitted, a.handle) }
    case .descriptor(let d):
      guard d.isWritable else { throw ATTFailure(.writeNotPermitted, a.handle) }
    case .service, .include, .declaration:
      throw ATTFailure(.writeNotPermitted, a.handle)
    }
  }

  /// Applies a whole value. The CCCD takes exactly 2 octets (else Invalid Attribute Value Length); setting
  /// a bit the characteristic's properties do not allow, or writing a characteristic that
  /// `requiresSubscriptionForWrites` before subscribing, gets CCCD Improperly Configured (0xFD) [choice].
  func write(_ value: [UInt8], to a: GATTAttributeTable.Attribute, kind: GATTWrite.Kind) async throws {
    try checkWritable(a, kind: kind)
    guard value.count <= ATTLimits.maximumValueLength else { throw ATTFailure(.invalidAttributeValueLength, a.handle) }
    switch a.role {
    case .value(let c):
      if c.requiresSubscriptionForWrites && (cccd[a.handle] ?? 0) == 0 {
        throw ATTFailure(.cccdImproperlyConfigured, a.handle)
      }
      if let onWrite = c.onWrite {
        let write = GATTWrite(value: value, kind: kind, valueHandle: a.handle, connection: self)
        try await runHandler(a.handle) { try await onWrite(write) }
      } else {
        await server.setStoredValue(value, at: a.handle)
      }
    case .cccd(let c, let valueHandle):
      guard value.count == 2 else { throw ATTFailure(.invalidAttributeValueLength, a.handle) }
      let bits = UInt16(value[0]) | UInt16(value[1]) << 8
      let allowed: UInt16 = (c.properties.contains(.notify) ? 0x01 : 0) | (c.properties.contains(.indicate) ? 0x02 : 0)
      guard bits & ~allowed == 0 else { throw ATTFailure(.cccdImproperlyConfigured, a.handle) }
      let wasOff = (cccd[valueHandle] ?? 0) & 0x01 == 0
      setCCCD(bits, forValue: valueHandle)
      if wasOff, bits & 0x01 != 0, let onSubscribe = c.onSubscribe {
        afterResponse { [self] in await onSubscribe(self) }
      }
    case .descriptor:
      await server.setStoredValue(value, at: a.handle)
    case .service, .include, .declaration:
      throw ATTFailure(.writeNotPermitted, a.handle)
    }
  }

  /// Prepare Write (§3.4.6.1): checks the handle and write permission now, queues the part, echoes it.
  func prepareWrite(_ r: ATTPrepareWriteRequest) throws -> ATTPrepareWriteResponse {
    try checkWritable(try attribute(r.handle), kind: .long)
    guard prepareQueue.count < Self.prepareQueueLimit else { throw ATTFailure(.prepareQueueFull, r.handle) }
    prepareQueue.append(r)
    return ATTPrepareWriteResponse(handle: r.handle, offset: r.offset, partValue: r.partValue)
  }

  /// Execute Write (§3.4.6.3): flags 0x00 drops the queue; 0x01 assembles each handle's parts in order
  /// and writes the whole value once. [Choice] Parts build on an empty value: a part whose offset is past
  /// what earlier parts built gets Invalid Offset; more than 512 octets gets Invalid Attribute Value Length.
  /// The queue is emptied whatever the outcome.
  func executeWrite(_ r: ATTExecuteWriteRequest) async throws {
    let queue = prepareQueue
    prepareQueue = []
    guard r.flags == .write else { return }
    var order: [UInt16] = []
    var values: [UInt16: [UInt8]] = [:]
    for part in queue {
      var value = values[part.handle] ?? []
      if values[part.handle] == nil { order.append(part.handle) }
      let offset = Int(part.offset)
      guard offset <= value.count else { throw ATTFailure(.invalidOffset, part.handle) }
      let end = offset + part.partValue.count
      if end > value.count { value += [UInt8](repeating: 0, count: end - value.count) }
      value.replaceSubrange(offset..<end, with: part.partValue)
      guard value.count <= ATTLimits.maximumValueLength else {
        throw ATTFailure(.invalidAttributeValueLength, part.handle)
      }
      values[part.handle] = value
    }
    for handle in order {
      try await write(values[handle] ?? [], to: try attribute(handle), kind: .long)
    }
  }

  /// Runs a device handler: an `ATTErrorCode` it throws becomes that error on `handle`, anything else
  /// Unlikely Error.
  func runHandler<T>(_ handle: UInt16, _ body: () async throws -> T) async throws -> T {
    do {
      return try await body()
    } catch let code as ATTErrorCode {
      throw ATTFailure(code, handle)
    } catch let failure as ATTFailure {
      throw failure
    } catch {
      throw ATTFailure(.unlikelyError, handle)
    }
  }
}
