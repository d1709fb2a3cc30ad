/// Value procedures (Core v5.4 Vol 3 Part G §4.8–§4.11, §4.12.3 for the CCCD).
extension GATTClient {
  /// Read Characteristic Value / Read Long Characteristic Values (Part G §4.8.1, §4.8.3): a Read Request,
  /// then Read Blob Requests while each answer fills the PDU (ATT_MTU − 1 octets). Attribute Not Long on a
  /// blob read ends the value (the peer says there is nothing past the first part).
  public func read(_ handle: UInt16) async throws -> [UInt8] {
    let answer = try await transact(ATTReadRequest(handle: handle))
    guard case .readResponse(let first) = answer else { throw unexpected(answer) }
    var value = first.value
    var part = first.value
    while part.count == mtu - 1 {
      guard value.count <= Int(UInt16.max) else { throw GATTError.valueTooLong(count: value.count, limit: 65535) }
      let blob: ATTPDU
      do {
        blob = try await transact(ATTReadBlobRequest(handle: handle, offset: UInt16(value.count)))
      } catch let error as ATTRequestError where error.code == .attributeNotLong {
        break
      }
      guard case .readBlobResponse(let response) = blob else { throw unexpected(blob) }
      part = response.partValue
      value += part
    }
    return value
  }

  /// Write Characteristic Value (Part G §4.9.3) when `value` fits in one Write Request (ATT_MTU − 3),
  /// otherwise Write Long Characteristic Values (§4.9.4).
  public func write(_ value: [UInt8], to handle: UInt16) async throws {
    if value.count <= mtu - 3 {
      let answer = try await transact(ATTWriteRequest(handle: handle, value: value))
      guard case .writeResponse = answer else { throw unexpected(answer) }
    } else {
      try await writeLong(value, to: handle)
    }
  }

  /// Write Without Response (Part G §4.9.1): one Write Command. Suspends until the bearer has taken the
  /// PDU, so a caller looping over many values is paced by the link (its per-connection-event capacity)
  /// instead of flooding it.
  public func writeWithoutResponse(_ value: [UInt8], to handle: UInt16) async throws {
    guard value.count <= mtu - 3 else { throw GATTError.valueTooLong(count: value.count, limit: mtu - 3) }
    commandCount()
    try await sendUnacknowledged(ATTWriteCommand(handle: handle, value: value))
  }

  /// Write Long Characteristic Values with Reliable Writes' check (Part G §4.9.4–§4.9.5): Prepare Write
  /// Requests of ATT_MTU − 5 octets, each echo compared with what was sent, then Execute Write (flags 0x01).
  /// On an echo mismatch or an Error Response the queue is cancelled (Execute Write flags 0x00).
  public func writeLong(_ value: [UInt8], to handle: UInt16) async throws {
    guard value.count <= ATTLimits.maximumValueLength else {
      throw GATTError.valueTooLong(count: value.count, limit: ATTLimits.maximumValueLength)
    }
    let chunk = mtu - 5
    var offset = 0
    do {
      repeat {
        let part = Array(value[offset..<min(value.count, offset + chunk)])
        let request = ATTPrepareWriteRequest(handle: handle, offset: UInt16(offset), partValue: part)
        let answer = try await transact(request)
        guard case .prepareWriteResponse(let echo) = answer else { throw unexpected(answer) }
        guard echo.handle == request.handle, echo.offset == request.offset, echo.partValue == part else {
          throw GATTError.reliableWriteMismatch(handle: handle, offset: UInt16(offset))
        }
        offset += part.count
      } while offset < value.count
    } catch {
      if terminationError == nil { _ = try? await transact(ATTExecuteWriteRequest(flags: .cancel)) }
      throw error
    }
    let answer = try await transact(ATTExecuteWriteRequest(flags: .write))
    guard case .executeWriteResponse = answer else { throw unexpected(answer) }
  }

  /// Writes the Client Characteristic Configuration descriptor (Part G §3.3.3.3): bit 0 notifications,
  /// bit 1 indications. Discovers the characteristic's descriptors when they are not known yet.
  public func configure(_ characteristic: GATTCharacteristic, notify: Bool, indicate: Bool) async throws {
    var cccd = characteristic.cccdHandle
    if cccd == nil {
      cccd = try await discoverDescriptors(of: characteristic).first {
        $0.uuid == GATTAttributeType.clientCharacteristicConfiguration
      }?.handle
    }
    guard let cccd else { throw GATTError.notFound("CCCD (0x2902) of characteristic \(characteristic.uuid)") }
    let bits: UInt8 = (notify ? 0x01 : 0) | (indicate ? 0x02 : 0)
    try await write([bits, 0x00], to: cccd)
  }

  /// Subscribes to a characteristic's value: opens the stream first (so nothing sent right after the CCCD
  /// write is missed), then enables notifications, or indications when the characteristic cannot notify.
  /// When the CCCD write fails the stream is ended, so it does not hold the handle's values for the link's
  /// life (a retry on a fresh discovery subscribes anew: `openThroughCache`).
  public func subscribe(to characteristic: GATTCharacteristic) async throws -> AsyncStream<[UInt8]> {
    let notify = characteristic.properties.contains(.notify)
    guard notify || characteristic.properties.contains(.indicate) else {
      throw GATTError.notFound("notify or indicate property on characteristic \(characteristic.uuid)")
    }
    let (stream, id) = subscriber(for: characteristic.valueHandle)
    do {
      try await configure(characteristic, notify: notify, indicate: !notify)
    } catch {
      endSubscriber(characteristic.valueHandle, id)
      throw error
    }
    return stream
  }

  /// Turns notifications and indications off (CCCD 0x0000). Streams already open stay open but get no
  /// more values.
  public func unsubscribe(from characteristic: GATTCharacteristic) async throws {
    try await configure(characteristic, notify: false, indicate: false)
  }
}
