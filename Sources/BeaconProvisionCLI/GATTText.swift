import BeaconCore

/// Text and JSON shapes of what the `gatt` commands print.
enum GATTText {
  /// `0x000B`.
  static func handle(_ h: UInt16) -> String { "0x" + hexByte(UInt8(h >> 8)) + hexByte(UInt8(h & 0xFF)) }

  /// Well-known names for the UUIDs a beacon shows (Assigned Numbers; KKM and Nordic vendor services).
  static let names: [BluetoothUUID: String] = [
    BluetoothUUID(0x1800): "Generic Access", BluetoothUUID(0x1801): "Generic Attribute",
    BluetoothUUID(0x180A): "Device Information", BluetoothUUID(0x180F): "Battery",
    BluetoothUUID(0xFEA0): "KBeacon Config", BluetoothUUID(0xFE59): "Nordic Secure DFU",
    BluetoothUUID(0x2A00): "Device Name", BluetoothUUID(0x2A01): "Appearance", BluetoothUUID(0x2A05): "Service Changed",
    BluetoothUUID(0x2A19): "Battery Level", BluetoothUUID(0x2A24): "Model Number",
    BluetoothUUID(0x2A26): "Firmware Revision",
    BluetoothUUID(0x2A27): "Hardware Revision", BluetoothUUID(0x2A29): "Manufacturer Name",
    BluetoothUUID(0xFEA1): "KBeacon Write", BluetoothUUID(0xFEA2): "KBeacon Notify",
    BluetoothUUID(0xFEA3): "KBeacon Indicate",
    BluetoothUUID(0x2902): "Client Characteristic Configuration", BluetoothUUID(0x2901): "User Description",
    BluetoothUUID(0x181C): "User Data", BluetoothUUID(0x2A23): "System ID", BluetoothUUID(0x2A25): "Serial Number",
    BluetoothUUID(0x2A28): "Software Revision", BluetoothUUID(0x2A8A): "First Name",
    BluetoothUUID(0x2B29): "Client Supported Features", BluetoothUUID(0x2B2A): "Database Hash",
    BluetoothUUID(0x2900): "Characteristic Extended Properties", BluetoothUUID(0x2904): "Presentation Format",
  ]

  static func label(_ uuid: BluetoothUUID) -> String {
    names[uuid].map { "\(uuid) \($0)" } ?? uuid.description
  }

  /// The indented listing `gatt ADDR` prints: services (secondary ones say so) in handle order, each with
  /// its includes (Core v5.4 Vol 3 Part G §3.2) and characteristics; the Extended Properties descriptor
  /// (0x2900) with its decoded bits.
  static func render(_ db: GATTDatabase) -> String {
    var lines: [String] = []
    for s in db.services {
      lines.append(
        "\(s.isPrimary ? "" : "secondary ")service \(label(s.uuid))  handles \(handle(s.startHandle))–\(handle(s.endHandle))"
      )
      for i in s.includes {
        lines.append(
          "  include \(label(i.uuid))  handles \(handle(i.startHandle))–\(handle(i.endHandle))  at \(handle(i.handle))")
      }
      for c in s.characteristics {
        lines.append(
          "  characteristic \(label(c.uuid))  value \(handle(c.valueHandle))  [\(c.properties.names.joined(separator: ", "))]"
        )
        for d in c.descriptors {
          var line = "    descriptor \(label(d.uuid))  \(handle(d.handle))"
          if d.uuid == GATTAttributeType.extendedProperties, let bits = c.extendedProperties {
            line += "  [\(bits.names.joined(separator: ", "))]"
          }
          lines.append(line)
        }
      }
    }
    return lines.joined(separator: "\n")
  }

  /// `--json`: handles as numbers, properties as names, UUIDs as text.
  struct DatabaseJSON: Encodable {
    struct Descriptor: Encodable {
      var uuid: String
      var handle: UInt16
    }
    struct Characteristic: Encodable {
      var uuid: String
      var declarationHandle: UInt16
      var valueHandle: UInt16
      var properties: [String]
      /// The Extended Properties descriptor's bits, when the characteristic has one.
      var extendedProperties: [String]?
      var descriptors: [Descriptor]
    }
    struct Include: Encodable {
      var uuid: String
      var name: String?
      var handle: UInt16
      var startHandle: UInt16
      var endHandle: UInt16
    }
    struct Service: Encodable {
      var uuid: String
      var name: String?
      var primary: Bool
      var startHandle: UInt16
      var endHandle: UInt16
      var includes: [Include]
      var characteristics: [Characteristic]
    }
    var address: String
    var mtu: Int
    var services: [Service]

    init(address: BluetoothAddress, mtu: Int, db: GATTDatabase) {
      self.address = address.description
      self.mtu = mtu
      services = db.services.map { s in
        Service(
          uuid: s.uuid.description, name: names[s.uuid], primary: s.isPrimary, startHandle: s.startHandle,
          endHandle: s.endHandle,
          includes: s.includes.map {
            Include(
              uuid: $0.uuid.description, name: names[$0.uuid], handle: $0.handle, startHandle: $0.startHandle,
              endHandle: $0.endHandle)
          },
          characteristics: s.characteristics.map { c in
            Characteristic(
              uuid: c.uuid.description, declarationHandle: c.declarationHandle, valueHandle: c.valueHandle,
              properties: c.properties.names, extendedProperties: c.extendedProperties?.names,
              descriptors: c.descriptors.map { Descriptor(uuid: $0.uuid.description, handle: $0.handle) })
          })
      }
    }
  }
}
