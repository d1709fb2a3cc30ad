import BeaconCore

/// Text and JSON shapes of what the `gatt` commands print.
enum GattText {
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
  ]

  static func label(_ uuid: BluetoothUUID) -> String {
    names[uuid].map { "\(uuid) \($0)" } ?? uuid.description
  }

  /// The indented listing `gatt ADDR` prints.
  static func render(_ db: GATTDatabase) -> String {
    var lines: [String] = []
    for s in db.services {
      lines.append("service \(label(s.uuid))  handles \(handle(s.startHandle))–\(handle(s.endHandle))")
      for c in s.characteristics {
        lines.append(
          "  characteristic \(label(c.uuid))  value \(handle(c.valueHandle))  [\(c.properties.names.joined(separator: ", "))]"
        )
        for d in c.descriptors { lines.append("    descriptor \(label(d.uuid))  \(handle(d.handle))") }
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
      var descriptors: [Descriptor]
    }
    struct Service: Encodable {
      var uuid: String
      var name: String?
      var startHandle: UInt16
      var endHandle: UInt16
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
          uuid: s.uuid.description, name: names[s.uuid], startHandle: s.startHandle, endHandle: s.endHandle,
          characteristics: s.characteristics.map { c in
            Characteristic(
              uuid: c.uuid.description, declarationHandle: c.declarationHandle, valueHandle: c.valueHandle,
              properties: c.properties.names,
              descriptors: c.descriptors.map { Descriptor(uuid: $0.uuid.description, handle: $0.handle) })
          })
      }
    }
  }
}
