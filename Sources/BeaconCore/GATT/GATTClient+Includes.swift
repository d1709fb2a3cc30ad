/// Relationship discovery and the Extended Properties descriptor (Core v5.4 Vol 3 Part G §4.5.1, §3.3.3.1).
extension GATTClient {
  /// Find Included Services (Part G §4.5.1): Read By Type «Include» (0x2802) over the service's range until
  /// Attribute Not Found. A value of 6 octets carries the included service's 16-bit UUID; one of 4 leaves a
  /// 128-bit UUID out, and it is read from the included service's declaration (a Read Request on its start
  /// handle, answered with the 16 UUID octets).
  public func discoverIncludes(of service: GATTService) async throws -> [GATTInclude] {
    var found: [GATTInclude] = []
    var start = service.startHandle
    while start <= service.endHandle {
      let answer: ATTPDU
      do {
        answer = try await transact(
          ATTReadByTypeRequest(startHandle: start, endHandle: service.endHandle, type: GATTAttributeType.include))
      } catch let error as ATTRequestError where error.code == .attributeNotFound {
        break
      }
      guard case .readByTypeResponse(let response) = answer else { throw unexpected(answer) }
      for entry in response.entries {
        let v = entry.value
        guard entry.handle >= start, entry.handle <= service.endHandle, v.count == 4 || v.count == 6 else {
          throw GATTError.protocolViolation("bad include declaration at handle \(entry.handle)")
        }
        let first = UInt16(v[0]) | UInt16(v[1]) << 8
        let last = UInt16(v[2]) | UInt16(v[3]) << 8
        guard first != 0, last >= first else {
          throw GATTError.protocolViolation("include at handle \(entry.handle) names the range \(first)…\(last)")
        }
        let uuid: BluetoothUUID
        if v.count == 6, let short = BluetoothUUID(littleEndian: v[4...]) {
          uuid = short
        } else {
          uuid = try await includedServiceUUID(at: first)
        }
        found.append(GATTInclude(handle: entry.handle, startHandle: first, endHandle: last, uuid: uuid))
      }
      guard let last = found.last, last.handle < service.endHandle else { break }
      start = last.handle + 1
    }
    return found
  }

  /// The 128-bit UUID of an included service: its declaration's value (Part G §4.5.1, Read Request).
  func includedServiceUUID(at handle: UInt16) async throws -> BluetoothUUID {
    let answer = try await transact(ATTReadRequest(handle: handle))
    guard case .readResponse(let response) = answer, response.value.count == 16,
      let uuid = BluetoothUUID(littleEndian: response.value)
    else { throw GATTError.protocolViolation("the included service at handle \(handle) has no 128-bit UUID") }
    return uuid
  }

  /// Reads the characteristic's Extended Properties descriptor (0x2900) when it has one; nil without one.
  /// [I] A value that is not 2 octets, or a read the server refuses, leaves it nil: the listing shows the
  /// descriptor without a decoded value rather than failing the whole discovery.
  func readExtendedProperties(of characteristic: GATTCharacteristic) async throws -> GATTExtendedProperties? {
    guard let descriptor = characteristic.descriptors.first(where: { $0.uuid == GATTAttributeType.extendedProperties })
    else { return nil }
    let answer: ATTPDU
    do {
      answer = try await transact(ATTReadRequest(handle: descriptor.handle))
    } catch is ATTRequestError {
      return nil
    }
    guard case .readResponse(let response) = answer else { throw unexpected(answer) }
    return GATTExtendedProperties(descriptorValue: response.value)
  }
}
