import BeaconCore

/// An Error Response in the making: which code, on which handle.
struct ATTFailure: Error {
  var code: ATTErrorCode
  var handle: UInt16
  init(_ code: ATTErrorCode, _ handle: UInt16) {
    self.code = code
    self.handle = handle
  }
}

/// Request dispatch: every client PDU → at most one response (Core v5.4 Vol 3 Part F §3.3, §3.4).
extension GATTServerConnection {
  /// Answers one PDU from the client. Returns the response bytes, or nil for PDUs that get none
  /// (commands, confirmations, stray responses). Never traps on malformed input:
  /// - an unknown opcode with the Command flag clear, or a known request we do not implement (Read
  ///   Multiple), → Error Response Request Not Supported (§3.4.9), handle 0x0000;
  /// - a malformed known request → Invalid PDU (0x04), handle 0x0000;
  /// - a malformed or unknown command, or anything that is not a request → ignored;
  /// - anything at all once the device dropped the link (`disconnect()`) → ignored: those PDUs were still
  ///   queued when the link went, and a device never sees what its lost link had not yet delivered.
  public func respond(to bytes: [UInt8]) async -> [UInt8]? {
    guard !droppedByDevice else { return nil }
    if let first = bytes.first { await server.received(opcode: first) }
    let pdu: ATTPDU
    do {
      pdu = try ATTPDU(bytes)
    } catch {
      guard let raw = error.opcode, !ATTOpcode.isCommand(raw) else { return nil }
      guard let known = ATTOpcode(rawValue: raw) else {
        return ATTErrorResponse(request: raw, handle: 0, error: .requestNotSupported).bytes
      }
      guard known.isRequest else { return nil }
      let code: ATTErrorCode = error.reason == .unknownOpcode ? .requestNotSupported : .invalidPDU
      return ATTErrorResponse(request: raw, handle: 0, error: code).bytes
    }
    do {
      switch pdu {
      case .exchangeMTURequest(let r):
        setMTU(max(ATTLimits.defaultMTU, min(maxMTU, Int(r.clientRxMTU))))
        return ATTExchangeMTUResponse(serverRxMTU: UInt16(maxMTU)).bytes
      case .readByGroupTypeRequest(let r): return try await readByGroupType(r).bytes
      case .readByTypeRequest(let r): return try await readByType(r).bytes
      case .findInformationRequest(let r): return try findInformation(r).bytes
      case .findByTypeValueRequest(let r): return try await findByTypeValue(r).bytes
      case .readRequest(let r):
        let value = try await readValue(try attribute(r.handle))
        return ATTReadResponse(value: Array(value.prefix(mtu - 1))).bytes
      case .readBlobRequest(let r): return try await readBlob(r).bytes
      case .writeRequest(let r):
        try await write(r.value, to: try attribute(r.handle), kind: .request)
        return ATTWriteResponse().bytes
      case .writeCommand(let c):
        if let a = table.attribute(c.handle) { try? await write(c.value, to: a, kind: .command) }
        return nil
      case .prepareWriteRequest(let r): return try prepareWrite(r).bytes
      case .executeWriteRequest(let r):
        try await executeWrite(r)
        return ATTExecuteWriteResponse().bytes
      case .handleValueConfirmation:
        confirmationReceived()
        return nil
      default:
        return nil
      }
    } catch let failure as ATTFailure {
      return ATTErrorResponse(request: pdu.opcode, handle: failure.handle, error: failure.code).bytes
    } catch {
      return ATTErrorResponse(request: pdu.opcode, handle: 0, error: .unlikelyError).bytes
    }
  }

  func attribute(_ handle: UInt16) throws -> GATTAttributeTable.Attribute {
    guard let a = table.attribute(handle) else { throw ATTFailure(.invalidHandle, handle) }
    return a
  }

  /// Part F §3.4.3.1, §3.4.4.1, §3.4.4.9: a zero start handle or start > end is Invalid Handle.
  func checkRange(_ start: UInt16, _ end: UInt16) throws {
    guard start != 0, start <= end else { throw ATTFailure(.invalidHandle, start) }
  }

  /// Read By Group Type (§3.4.4.9–10): service declarations in range, all entries with values of the
  /// first one's length, as many as fit in ATT_MTU.
  func readByGroupType(_ r: ATTReadByGroupTypeRequest) async throws -> ATTReadByGroupTypeResponse {
    try checkRange(r.startHandle, r.endHandle)
    guard r.groupType == GATTAttributeType.primaryService || r.groupType == GATTAttributeType.secondaryService else {
      throw ATTFailure(.unsupportedGroupType, r.startHandle)
    }
    var entries: [ATTReadByGroupTypeResponse.Entry] = []
    for a in table.attributes(in: r.startHandle, r.endHandle) where a.type == r.groupType {
      guard case .service(let s, let end) = a.role else { continue }
      let value = s.uuid.attBytes
      if let first = entries.first {
        guard value.count == first.value.count, 2 + (entries.count + 1) * (4 + value.count) <= mtu else { break }
      }
      entries.append(.init(handle: a.handle, endGroupHandle: end, value: value))
    }
    guard !entries.isEmpty else { throw ATTFailure(.attributeNotFound, r.startHandle) }
    return ATTReadByGroupTypeResponse(entries: entries)
  }

  /// Read By Type (§3.4.4.1–2): attributes of the type in range; a read error on the first one is
  /// returned, on a later one ends the list; values cut to min(ATT_MTU − 4, 253) and all of one length.
  func readByType(_ r: ATTReadByTypeRequest) async throws -> ATTReadByTypeResponse {
    try checkRange(r.startHandle, r.endHandle)
    var entries: [ATTReadByTypeResponse.Entry] = []
    for a in table.attributes(in: r.startHandle, r.endHandle) where a.type == r.type {
      let value: [UInt8]
      do {
        value = Array(try await readValue(a).prefix(min(mtu - 4, 253)))
      } catch {
        if entries.isEmpty { throw error }
        break
      }
      if let first = entries.first {
        guard value.count == first.value.count, 2 + (entries.count + 1) * (2 + value.count) <= mtu else { break }
      }
      entries.append(.init(handle: a.handle, value: value))
    }
    guard !entries.isEmpty else { throw ATTFailure(.attributeNotFound, r.startHandle) }
    return ATTReadByTypeResponse(entries: entries)
  }

  /// Find Information (§3.4.3.1–2): handles and types in range, all of the first one's UUID size.
  func findInformation(_ r: ATTFindInformationRequest) throws -> ATTFindInformationResponse {
    try checkRange(r.startHandle, r.endHandle)
    var entries: [ATTFindInformationResponse.Entry] = []
    for a in table.attributes(in: r.startHandle, r.endHandle) {
      let size = a.type.attBytes.count
      if let first = entries.first {
        guard size == first.type.attBytes.count, 2 + (entries.count + 1) * (2 + size) <= mtu else { break }
      }
      entries.append(.init(handle: a.handle, type: a.type))
    }
    guard !entries.isEmpty else { throw ATTFailure(.attributeNotFound, r.startHandle) }
    return ATTFindInformationResponse(entries: entries)
  }

  /// Find By Type Value (§3.4.3.3–4): attributes of the 16-bit type whose value equals the request's; the
  /// group end is the service's last handle for a service declaration, else the handle itself.
  func findByTypeValue(_ r: ATTFindByTypeValueRequest) async throws -> ATTFindByTypeValueResponse {
    try checkRange(r.startHandle, r.endHandle)
    let type = BluetoothUUID(r.type)
    var ranges: [ATTFindByTypeValueResponse.HandleRange] = []
    for a in table.attributes(in: r.startHandle, r.endHandle) where a.type == type {
      guard let value = try? await readValue(a), value == r.value else { continue }
      guard 1 + (ranges.count + 1) * 4 <= mtu else { break }
      var end = a.handle
      if case .service(_, let last) = a.role { end = last }
      ranges.append(.init(foundHandle: a.handle, groupEndHandle: end))
    }
    guard !ranges.isEmpty else { throw ATTFailure(.attributeNotFound, r.startHandle) }
    return ATTFindByTypeValueResponse(ranges: ranges)
  }
}
