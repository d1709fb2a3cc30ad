import BeaconCore
import Synchronization

/// One simulated device's GATT server: the attribute table, the stored values shared by all of its
/// connections, and the connections themselves (Core v5.4 Vol 3 Part G). Each link gets a
/// `GATTServerConnection` holding that link's MTU, CCCD bits and prepare-write queue.
///
/// A Database Hash characteristic (0x2B2A) in the table reads as the table's hash (`GATTDatabaseHash`),
/// recomputed when `replaceServices` lays the table out anew (a firmware update), which also indicates
/// Service Changed (0x2A05) to every connection that enabled it (Part G §7.1, §7.3).
public actor GATTServer {
  /// The table in force; replaced only by `replaceServices` (hence a lock, read from any isolation).
  private nonisolated let current: Mutex<GATTAttributeTable>
  public nonisolated var table: GATTAttributeTable { current.withLock { $0 } }
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
    let table = GATTAttributeTable(services: services)
    current = Mutex(table)
    self.maxMTU = max(ATTLimits.defaultMTU, min(maxMTU, 517))
    stored = Self.initialValues(table)
  }

  /// Every stored value as the table starts: characteristic and descriptor values, and the Database Hash.
  static func initialValues(_ table: GATTAttributeTable) -> [UInt16: [UInt8]] {
    var stored: [UInt16: [UInt8]] = [:]
    for a in table.attributes {
      switch a.role {
      case .value(let c):
        stored[a.handle] = c.uuid == GATTCaching.databaseHash ? GATTDatabaseHash.value(of: table) : c.value
      case .descriptor(let d): stored[a.handle] = d.value
      default: break
      }
    }
    return stored
  }

  /// Lays the table out anew from `services`, as a device running new firmware does: stored values start
  /// afresh, the Database Hash is the new table's, every live connection forgets its CCCD bits and
  /// prepared writes, and those that had enabled Service Changed indications are sent one for 0x0001–0xFFFF
  /// [I: the whole range; a real stack names the range that changed]. Connections made later see only the
  /// new table.
  public func replaceServices(_ services: [SimulatedService]) async {
    let old = table
    let subscribed = old.valueHandle(of: GATTCaching.serviceChanged)
    var indicated: [GATTServerConnection] = []
    for c in connections.values {
      if let handle = subscribed, await c.indicationsEnabled(at: handle) { indicated.append(c) }
    }
    let table = GATTAttributeTable(services: services)
    current.withLock { $0 = table }
    stored = Self.initialValues(table)
    for c in connections.values { await c.databaseReplaced() }
    guard let handle = table.valueHandle(of: GATTCaching.serviceChanged) else { return }
    for c in indicated { try? await c.indicate(handle: handle, [0x01, 0x00, 0xFF, 0xFF]) }
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

  /// ATT PDUs the device received that wait for an answer (requests), over all its connections: the round
  /// trips it served, counted on the device side.
  public private(set) var requestsReceived = 0
  /// Write Commands received.
  public private(set) var commandsReceived = 0

  func received(opcode: UInt8) {
    if opcode == ATTOpcode.writeCommand.rawValue {
      commandsReceived += 1
    } else if let known = ATTOpcode(rawValue: opcode), known.isRequest {
      requestsReceived += 1
    }
  }

  /// Every live connection.
  public var activeConnections: [GATTServerConnection] { Array(connections.values) }

  func attach(_ connection: GATTServerConnection) { connections[ObjectIdentifier(connection)] = connection }
  func detach(_ connection: GATTServerConnection) { connections[ObjectIdentifier(connection)] = nil }
}
