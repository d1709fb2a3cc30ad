import BeaconCore

/// The server's attribute table built from `SimulatedService`s: one entry per handle, in handle order
/// (Core v5.4 Vol 3 Part F §3.2, Part G §3). Immutable once built; values live in `GATTServer`.
public struct GATTAttributeTable: Sendable {
  /// What an attribute is, which decides its value and permissions.
  public enum Role: Sendable {
    /// Service declaration; value = the service UUID; `end` = last handle of the service.
    case service(SimulatedService, end: UInt16)
    /// Include declaration; value = the included service's start and end handles, and its UUID when
    /// 16-bit (Part G §3.2, `GATTInclude.value`).
    case include(start: UInt16, end: UInt16, uuid: BluetoothUUID)
    /// Characteristic declaration; value = properties | value handle | UUID (Part G §3.3.1).
    case declaration(SimulatedCharacteristic, valueHandle: UInt16)
    /// Characteristic value.
    case value(SimulatedCharacteristic)
    /// Client Characteristic Configuration of the characteristic whose value is at `valueHandle`.
    case cccd(SimulatedCharacteristic, valueHandle: UInt16)
    /// Any other descriptor.
    case descriptor(SimulatedDescriptor)
  }

  public struct Attribute: Sendable {
    public var handle: UInt16
    public var type: BluetoothUUID
    public var role: Role
  }

  /// Index i holds handle `firstHandle + i`.
  public let attributes: [Attribute]
  public let firstHandle: UInt16

  /// Includes name services by UUID; one naming no service of the table is left out.
  public init(services given: [SimulatedService], firstHandle: UInt16 = 1) {
    let known = Set(given.map(\.uuid))
    let services = given.map { service in
      var s = service
      s.includes = s.includes.filter(known.contains)
      return s
    }
    // First pass: every service's handle range, so an include may name a service laid out after it.
    var ranges: [(uuid: BluetoothUUID, start: UInt16, end: UInt16)] = []
    var at = firstHandle
    for service in services {
      let end = at + UInt16(service.attributeCount) - 1
      ranges.append((service.uuid, at, end))
      at = end + 1
    }
    var list: [Attribute] = []
    var next = firstHandle
    for service in services {
      let start = next
      var inner: [Attribute] = []
      var h = start + 1
      for uuid in service.includes {
        guard let target = ranges.first(where: { $0.uuid == uuid }) else { continue }
        inner.append(
          Attribute(
            handle: h, type: GATTAttributeType.include, role: .include(start: target.start, end: target.end, uuid: uuid)
          ))
        h += 1
      }
      for c in service.characteristics {
        inner.append(
          Attribute(handle: h, type: GATTAttributeType.characteristic, role: .declaration(c, valueHandle: h + 1)))
        inner.append(Attribute(handle: h + 1, type: c.uuid, role: .value(c)))
        let valueHandle = h + 1
        h += 2
        if !c.properties.isDisjoint(with: [.notify, .indicate]) {
          inner.append(
            Attribute(
              handle: h, type: GATTAttributeType.clientCharacteristicConfiguration,
              role: .cccd(c, valueHandle: valueHandle)))
          h += 1
        }
        for d in c.descriptors {
          inner.append(Attribute(handle: h, type: d.uuid, role: .descriptor(d)))
          h += 1
        }
      }
      let type = service.isPrimary ? GATTAttributeType.primaryService : GATTAttributeType.secondaryService
      list.append(Attribute(handle: start, type: type, role: .service(service, end: h - 1)))
      list += inner
      next = h
    }
    attributes = list
    self.firstHandle = firstHandle
  }

  public var lastHandle: UInt16 { attributes.last?.handle ?? 0 }

  public func attribute(_ handle: UInt16) -> Attribute? {
    guard handle >= firstHandle else { return nil }
    let i = Int(handle - firstHandle)
    return i < attributes.count ? attributes[i] : nil
  }

  /// Attributes with handles in `start…end`, in order.
  public func attributes(in start: UInt16, _ end: UInt16) -> ArraySlice<Attribute> {
    guard start <= end, end >= firstHandle, start <= lastHandle else { return [] }
    let lo = Int(max(start, firstHandle) - firstHandle)
    let hi = Int(min(end, lastHandle) - firstHandle)
    return attributes[lo...hi]
  }

  /// The value handle of the first characteristic with this UUID (optionally in one service).
  public func valueHandle(of uuid: BluetoothUUID, inService service: BluetoothUUID? = nil) -> UInt16? {
    var inWanted = service == nil
    for a in attributes {
      switch a.role {
      case .service(let s, _): inWanted = service == nil || s.uuid == service
      case .value(let c) where inWanted && c.uuid == uuid: return a.handle
      default: break
      }
    }
    return nil
  }

  /// The CCCD handle of the characteristic whose value is at `valueHandle`.
  public func cccdHandle(forValue valueHandle: UInt16) -> UInt16? {
    guard let next = attribute(valueHandle + 1), case .cccd = next.role else { return nil }
    return next.handle
  }
}
