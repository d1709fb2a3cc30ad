/// MTU exchange and discovery procedures (Core v5.4 Vol 3 Part G §4.3–§4.7).
extension GATTClient {
  /// Exchange MTU (Part G §4.3.1): offers `preferredMTU` (247) and adopts min(ours, peer's), at least 23.
  /// Runs once per link (Part F §3.4.2.1); later calls return the MTU in force. A peer answering Request
  /// Not Supported keeps the default 23.
  @discardableResult
  public func exchangeMTU() async throws -> Int {
    if mtuExchanged { return mtu }
    let answer: ATTPDU
    do {
      answer = try await transact(ATTExchangeMTURequest(clientRxMTU: UInt16(preferredMTU)))
    } catch let error as ATTRequestError where error.code == .requestNotSupported {
      mtuExchanged = true  // a server without the exchange keeps the default MTU (Part F §3.4.2)
      return mtu
    }
    guard case .exchangeMTUResponse(let response) = answer else { throw unexpected(answer) }
    mtuExchanged = true
    setMTU(max(ATTLimits.defaultMTU, min(preferredMTU, Int(response.serverRxMTU))))
    return mtu
  }

  /// Discover All Primary Services (Part G §4.4.1): Read By Group Type 0x2800 from 0x0001 until Attribute
  /// Not Found or the last group ends at 0xFFFF.
  public func discoverPrimaryServices() async throws -> [GATTService] {
    try await discoverServices(groupType: GATTAttributeType.primaryService)
  }

  /// Every secondary service: Read By Group Type 0x2801, the grouping type Part F §3.4.4.9 and Part G §2.5.3
  /// allow besides 0x2800 [I: GATT itself reaches secondary services only through includes (§4.5); this
  /// finds those no primary includes too]. A server that refuses the group type (Unsupported Group Type)
  /// has none to show.
  public func discoverSecondaryServices() async throws -> [GATTService] {
    do {
      return try await discoverServices(groupType: GATTAttributeType.secondaryService)
    } catch let error as ATTRequestError where error.code == .unsupportedGroupType {
      return []
    }
  }

  /// Read By Group Type `groupType` over 0x0001…0xFFFF, each response continuing after its last group.
  func discoverServices(groupType: BluetoothUUID) async throws -> [GATTService] {
    var services: [GATTService] = []
    var start: UInt16 = 0x0001
    while true {
      let answer: ATTPDU
      do {
        answer = try await transact(
          ATTReadByGroupTypeRequest(startHandle: start, endHandle: 0xFFFF, groupType: groupType))
      } catch let error as ATTRequestError where error.code == .attributeNotFound {
        break
      }
      guard case .readByGroupTypeResponse(let response) = answer else { throw unexpected(answer) }
      for entry in response.entries {
        guard entry.handle >= start, entry.endGroupHandle >= entry.handle,
          let uuid = BluetoothUUID(littleEndian: entry.value), entry.value.count != 4
        else { throw GATTError.protocolViolation("bad service entry at handle \(entry.handle)") }
        services.append(
          GATTService(
            uuid: uuid, startHandle: entry.handle, endHandle: entry.endGroupHandle,
            isPrimary: groupType == GATTAttributeType.primaryService))
      }
      guard let last = services.last, last.endHandle < 0xFFFF else { break }
      start = last.endHandle + 1
    }
    return services
  }

  /// Discover Primary Service by Service UUID (Part G §4.4.2): Find By Type Value 0x2800 = `uuid`.
  public func discoverPrimaryServices(_ uuid: BluetoothUUID) async throws -> [GATTService] {
    var services: [GATTService] = []
    var start: UInt16 = 0x0001
    while true {
      let answer: ATTPDU
      do {
        answer = try await transact(
          ATTFindByTypeValueRequest(startHandle: start, endHandle: 0xFFFF, type: 0x2800, value: uuid.attBytes))
      } catch let error as ATTRequestError where error.code == .attributeNotFound {
        break
      }
      guard case .findByTypeValueResponse(let response) = answer else { throw unexpected(answer) }
      for range in response.ranges {
        guard range.foundHandle >= start, range.groupEndHandle >= range.foundHandle else {
          throw GATTError.protocolViolation("bad handle range \(range.foundHandle)…\(range.groupEndHandle)")
        }
        services.append(GATTService(uuid: uuid, startHandle: range.foundHandle, endHandle: range.groupEndHandle))
      }
      guard let last = services.last, last.endHandle < 0xFFFF else { break }
      start = last.endHandle + 1
    }
    return services
  }

  /// Discover All Characteristics of a Service (Part G §4.6.1): Read By Type 0x2803 over the service's
  /// range, until Attribute Not Found or no room for another declaration. Each characteristic's `endHandle`
  /// is the next declaration − 1 (or the service's end).
  public func discoverCharacteristics(of service: GATTService) async throws -> [GATTCharacteristic] {
    var found: [GATTCharacteristic] = []
    var start = service.startHandle
    while start <= service.endHandle {
      let answer: ATTPDU
      do {
        answer = try await transact(
          ATTReadByTypeRequest(startHandle: start, endHandle: service.endHandle, type: GATTAttributeType.characteristic)
        )
      } catch let error as ATTRequestError where error.code == .attributeNotFound {
        break
      }
      guard case .readByTypeResponse(let response) = answer else { throw unexpected(answer) }
      for entry in response.entries {
        // Characteristic declaration value (Part G §3.3.1): properties (1) | value handle (2) | UUID (2/16).
        let v = entry.value
        guard entry.handle >= start, entry.handle <= service.endHandle, v.count == 5 || v.count == 19,
          let uuid = BluetoothUUID(littleEndian: v[3...])
        else { throw GATTError.protocolViolation("bad characteristic declaration at handle \(entry.handle)") }
        let valueHandle = UInt16(v[1]) | UInt16(v[2]) << 8
        if !found.isEmpty { found[found.count - 1].endHandle = entry.handle - 1 }
        found.append(
          GATTCharacteristic(
            uuid: uuid, properties: GATTCharacteristicProperties(rawValue: v[0]), declarationHandle: entry.handle,
            valueHandle: valueHandle, endHandle: service.endHandle))
      }
      // Another declaration needs two handles (declaration + value) after the last value: when the service
      // has no room left, the terminating Attribute Not Found round trip is skipped.
      guard let last = found.last, Int(last.valueHandle) + 2 <= Int(service.endHandle) else { break }
      start = last.declarationHandle + 1
    }
    return found
  }

  /// Discover All Characteristic Descriptors (Part G §4.7.1): Find Information over value handle + 1 …
  /// end handle. An empty range costs no round trip.
  public func discoverDescriptors(of characteristic: GATTCharacteristic) async throws -> [GATTDescriptor] {
    var found: [GATTDescriptor] = []
    guard characteristic.valueHandle < characteristic.endHandle else { return found }
    var start = characteristic.valueHandle + 1
    while start <= characteristic.endHandle {
      let answer: ATTPDU
      do {
        answer = try await transact(ATTFindInformationRequest(startHandle: start, endHandle: characteristic.endHandle))
      } catch let error as ATTRequestError where error.code == .attributeNotFound {
        break
      }
      guard case .findInformationResponse(let response) = answer else { throw unexpected(answer) }
      for entry in response.entries {
        guard entry.handle >= start, entry.handle <= characteristic.endHandle else {
          throw GATTError.protocolViolation(
            "descriptor handle \(entry.handle) outside \(start)…\(characteristic.endHandle)")
        }
        found.append(GATTDescriptor(uuid: entry.type, handle: entry.handle))
      }
      guard let last = found.last, last.handle < characteristic.endHandle else { break }
      start = last.handle + 1
    }
    return found
  }

  /// The whole database: primary and secondary services in handle order (a service met only through an
  /// include is added as secondary), each service's includes and characteristics, every characteristic's
  /// descriptors, and the Extended Properties descriptor's value where there is one. Kept as `database`
  /// for lookups by UUID.
  ///
  /// Include definitions immediately follow the service declaration, before any characteristic (Part G
  /// §3.1), so a service whose first characteristic declaration is right after its own (or that is a lone
  /// declaration) has none, and the Find Included Services round trip is skipped.
  @discardableResult
  public func discover() async throws -> GATTDatabase {
    var services = try await discoverPrimaryServices() + discoverSecondaryServices()
    services.sort { $0.startHandle < $1.startHandle }
    var s = 0
    while s < services.count {
      var characteristics = try await discoverCharacteristics(of: services[s])
      let firstInside = characteristics.first.map { Int($0.declarationHandle) } ?? Int(services[s].endHandle) + 1
      if firstInside > Int(services[s].startHandle) + 1 {
        services[s].includes = try await discoverIncludes(of: services[s])
      }
      for include in services[s].includes where !services.contains(where: { $0.startHandle == include.startHandle }) {
        services.append(
          GATTService(
            uuid: include.uuid, startHandle: include.startHandle, endHandle: include.endHandle, isPrimary: false))
      }
      for c in characteristics.indices {
        characteristics[c].descriptors = try await discoverDescriptors(of: characteristics[c])
        characteristics[c].extendedProperties = try await readExtendedProperties(of: characteristics[c])
      }
      services[s].characteristics = characteristics
      s += 1
    }
    services.sort { $0.startHandle < $1.startHandle }
    let db = GATTDatabase(services: services)
    setDatabase(db)
    return db
  }

  /// The characteristic with this UUID, discovering the database first if needed.
  public func characteristic(_ uuid: BluetoothUUID, inService service: BluetoothUUID? = nil) async throws
    -> GATTCharacteristic
  {
    let db: GATTDatabase
    if let known = database { db = known } else { db = try await discover() }
    guard let c = db.characteristic(uuid, inService: service) else {
      throw GATTError.notFound("characteristic \(uuid)")
    }
    return c
  }

  func unexpected(_ pdu: ATTPDU) -> GATTError {
    GATTError.protocolViolation("unexpected \(pdu.opcode)")
  }
}
