/// Characteristic Properties, the first octet of a characteristic declaration (Core v5.4 Vol 3 Part G
/// §3.3.1.1, Table 3.5).
public struct GATTCharacteristicProperties: OptionSet, Sendable, Hashable, Codable, CustomStringConvertible {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  public static let broadcast = Self(rawValue: 0x01)
  public static let read = Self(rawValue: 0x02)
  public static let writeWithoutResponse = Self(rawValue: 0x04)
  public static let write = Self(rawValue: 0x08)
  public static let notify = Self(rawValue: 0x10)
  public static let indicate = Self(rawValue: 0x20)
  public static let authenticatedSignedWrites = Self(rawValue: 0x40)
  public static let extendedProperties = Self(rawValue: 0x80)

  static let names: [(Self, String)] = [
    (.broadcast, "broadcast"), (.read, "read"), (.writeWithoutResponse, "write-without-response"),
    (.write, "write"), (.notify, "notify"), (.indicate, "indicate"),
    (.authenticatedSignedWrites, "authenticated-signed-writes"), (.extendedProperties, "extended-properties"),
  ]

  /// The set names, e.g. `["read", "notify"]`.
  public var names: [String] { Self.names.filter { contains($0.0) }.map(\.1) }

  public var description: String { names.joined(separator: ",") }
}

/// SIG-assigned attribute types GATT is built from (Core v5.4 Vol 3 Part G §3, Assigned Numbers §3.7).
public enum GATTAttributeType {
  public static let primaryService = BluetoothUUID(0x2800)
  public static let secondaryService = BluetoothUUID(0x2801)
  public static let include = BluetoothUUID(0x2802)
  public static let characteristic = BluetoothUUID(0x2803)
  public static let extendedProperties = BluetoothUUID(0x2900)
  public static let userDescription = BluetoothUUID(0x2901)
  public static let clientCharacteristicConfiguration = BluetoothUUID(0x2902)
}

/// A descriptor found by Find Information (Part G §4.7.1).
public struct GATTDescriptor: Sendable, Hashable, Codable {
  public var uuid: BluetoothUUID
  public var handle: UInt16
  public init(uuid: BluetoothUUID, handle: UInt16) {
    self.uuid = uuid
    self.handle = handle
  }
}

/// A characteristic found by Discover All Characteristics of a Service (Part G §4.6.1): its declaration,
/// value handle, the last handle that belongs to it, and (once discovered) its descriptors.
public struct GATTCharacteristic: Sendable, Hashable, Codable {
  public var uuid: BluetoothUUID
  public var properties: GATTCharacteristicProperties
  public var declarationHandle: UInt16
  public var valueHandle: UInt16
  /// The last handle of the characteristic definition (next declaration − 1, or the service's end).
  public var endHandle: UInt16
  public var descriptors: [GATTDescriptor]
  /// The Characteristic Extended Properties descriptor's value (0x2900, Part G §3.3.3.1), once read.
  public var extendedProperties: GATTExtendedProperties?

  public init(
    uuid: BluetoothUUID, properties: GATTCharacteristicProperties, declarationHandle: UInt16, valueHandle: UInt16,
    endHandle: UInt16, descriptors: [GATTDescriptor] = [], extendedProperties: GATTExtendedProperties? = nil
  ) {
    self.uuid = uuid
    self.properties = properties
    self.declarationHandle = declarationHandle
    self.valueHandle = valueHandle
    self.endHandle = endHandle
    self.descriptors = descriptors
    self.extendedProperties = extendedProperties
  }

  /// The Client Characteristic Configuration descriptor, when discovered.
  public var cccdHandle: UInt16? {
    descriptors.first { $0.uuid == GATTAttributeType.clientCharacteristicConfiguration }?.handle
  }
}

/// A service found by service discovery (Part G §4.4, secondary ones as §4.5 describes), with its include
/// declarations and characteristics once discovered.
public struct GATTService: Sendable, Hashable, Codable {
  public var uuid: BluetoothUUID
  public var startHandle: UInt16
  public var endHandle: UInt16
  /// Declared with «Primary Service» (0x2800), else «Secondary Service» (0x2801) (Part G §3.1).
  public var isPrimary: Bool
  /// The services this one includes (Part G §3.2), in handle order.
  public var includes: [GATTInclude]
  public var characteristics: [GATTCharacteristic]

  public init(
    uuid: BluetoothUUID, startHandle: UInt16, endHandle: UInt16, isPrimary: Bool = true, includes: [GATTInclude] = [],
    characteristics: [GATTCharacteristic] = []
  ) {
    self.uuid = uuid
    self.startHandle = startHandle
    self.endHandle = endHandle
    self.isPrimary = isPrimary
    self.includes = includes
    self.characteristics = characteristics
  }

  public func characteristic(_ uuid: BluetoothUUID) -> GATTCharacteristic? {
    characteristics.first { $0.uuid == uuid }
  }
}

/// Everything a client discovered on one peer: services (primary and secondary, in handle order) →
/// includes, characteristics → descriptors, with lookups by UUID and handle.
public struct GATTDatabase: Sendable, Hashable, Codable {
  public var services: [GATTService]

  public init(services: [GATTService]) { self.services = services }

  public func service(_ uuid: BluetoothUUID) -> GATTService? { services.first { $0.uuid == uuid } }

  /// The first characteristic with this UUID, optionally only within one service.
  public func characteristic(_ uuid: BluetoothUUID, inService service: BluetoothUUID? = nil) -> GATTCharacteristic? {
    for s in services where service == nil || s.uuid == service {
      if let c = s.characteristic(uuid) { return c }
    }
    return nil
  }

  /// The characteristic whose definition contains `handle` (declaration, value or a descriptor).
  public func characteristic(containing handle: UInt16) -> GATTCharacteristic? {
    services.lazy.flatMap(\.characteristics).first { $0.declarationHandle <= handle && handle <= $0.endHandle }
  }
}
