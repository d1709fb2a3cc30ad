import BeaconCore

/// One simulated device's GATT server: the attribute table, the stored values shared by all of its
/// connections, and the connections themselves (Core v5.4 Vol 3 Part G). Each link gets a
/// `GATTServerConnection` holding that link's MTU, CCCD bits and prepare-write queue.
public actor GATTServer {
  public nonisolated let table: GATTAttributeTable
  /// The Server Rx MTU this device answers an Exchange MTU with (the device's maximum).
  public nonisolated let maxMTU: Int
  private var stored: [UInt16: [UInt8]] = [:]
  private var connections: [ObjectIdentifier: GATTServerConnection] = [:]

  /// Called once per connection after its link ended (per-connection device state can be dropped here).
  public nonisolated let onDisconnect: (@Sendable (GATTServerConnection) async -> Void)?

  public init(
    services: [SimulatedService], maxMTU: Int = ATTLimits.preferredMTU,
    onDisconnect: (@Sendable (GATTServerConnection) async -> Void)? = nil
  ) {
    self.onDisconnect = onDisconnect
    table = GATTAttributeTable(services: services)
    self.maxMTU = max(ATTLimits.defaultMTU, min(maxMTU, 517))
    for a in table.attributes {
      switch a.role {
      case .value(let c): stored[a.handle] = c.value
      case .descriptor(let d): stored[a.handle] = d.value
      default: break
      }
    }
  }

  /// The value handle of a characteristic, for devices that address their own attributes.
  public nonisolated func valueHandle(of uuid: BluetoothUUID, inService service: BluetoothUUID? = nil) -> UInt16? {
    table.valueHandle(of: uuid, inService: service)
  }

  /// The stored value at `handle` (a characteristic without `onRead`, or a descriptor).
  public func storedValue(_ handle: UInt16) -> [UInt8]? { stored[handle] }

  /// Replaces a stored value, e.g. a sensor reading changing. Does not notify; see `notifyAll`.
  public func setStoredValue(_ value: [UInt8], at handle: UInt16) { stored[handle] = value }

  /// Sends a notification of `uuid`'s value to every connection that enabled notifications; returns how
  /// many got it.
  @discardableResult
  public func notifyAll(_ uuid: BluetoothUUID, _ value: [UInt8]) async -> Int {
    var sent = 0
    for c in connections.values where await c.notify(uuid, value) { sent += 1 }
    return sent
  }

  /// Every live connection.
  public var activeConnections: [GATTServerConnection] { Array(connections.values) }

  func attach(_ connection: GATTServerConnection) { connections[ObjectIdentifier(connection)] = connection }
  func detach(_ connection: GATTServerConnection) { connections[ObjectIdentifier(connection)] = nil }
}
