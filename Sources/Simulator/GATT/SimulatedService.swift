import BeaconCore

/// The device-building API of the simulated GATT server. A simulated device describes its database as
/// values: services holding characteristics holding descriptors. The server assigns handles in order
/// (service declaration, its include declarations, then per characteristic: declaration, value, CCCD when
/// notify/indicate, then the extra descriptors), exactly as a real stack lays out a table (Core v5.4 Vol 3
/// Part G §3).
///
/// A characteristic either keeps a stored `value` (reads return it, writes replace it) or plugs in
/// behaviour with `onRead` / `onWrite`. Handlers run on the connection that made the request; they can
/// answer with an ATT error by throwing an `ATTErrorCode` (any other error becomes Unlikely Error 0x0E),
/// and they can push data back through `GATTWrite.connection` (`notify` / `indicate`).
///
/// ```swift
/// let control = SimulatedCharacteristic(uuid: KBeaconGATT.write, properties: [.write, .writeWithoutResponse]) { write in
///   let reply = await myDevice.handle(frame: write.value, session: write.connection.id)
///   let connection = write.connection
///   await connection.afterResponse { await connection.notify(KBeaconGATT.notify, reply) }  // after the Write Response
/// }
/// let server = GATTServer(services: [SimulatedService(uuid: KBeaconGATT.service, characteristics: [control, …])])
/// let (bearer, link) = try await SimulatedLink.open(to: server, device: address, model: .instant)
/// ```
///
/// Per-connection state: key it by `GATTServerConnection.id`; drop it in `GATTServer(onDisconnect:)`.
/// A reboot: `await connection.disconnect()`. Server-initiated values: `connection.notify` /
/// `connection.indicate` (waits for the confirmation) or `GATTServer.notifyAll`.
public struct SimulatedService: Sendable {
  public var uuid: BluetoothUUID
  /// Primary (0x2800) or secondary (0x2801) service declaration.
  public var isPrimary: Bool
  /// Services of the same server this one includes, by UUID (the first service with that UUID): an
  /// include declaration (0x2802, Part G §3.2) each, right after the service declaration.
  public var includes: [BluetoothUUID]
  public var characteristics: [SimulatedCharacteristic]

  public init(
    uuid: BluetoothUUID, isPrimary: Bool = true, includes: [BluetoothUUID] = [],
    characteristics: [SimulatedCharacteristic]
  ) {
    self.uuid = uuid
    self.isPrimary = isPrimary
    self.includes = includes
    self.characteristics = characteristics
  }

  /// Handles the service takes: its declaration, its includes, and per characteristic declaration, value,
  /// CCCD (notify/indicate) and extra descriptors.
  var attributeCount: Int {
    1 + includes.count
      + characteristics.reduce(0) {
        $0 + 2 + ($1.properties.isDisjoint(with: [.notify, .indicate]) ? 0 : 1) + $1.descriptors.count
      }
  }
}

/// One characteristic: its UUID, properties (which also decide what the server permits: reads need
/// `.read`; Write Requests and long writes need `.write`; Write Commands need `.writeWithoutResponse`),
/// a stored value or handlers, and extra descriptors. A CCCD (0x2902) is added automatically when the
/// properties include `.notify` or `.indicate`; its state is kept per connection.
public struct SimulatedCharacteristic: Sendable {
  /// Returns the whole current value; the server slices it for Read Blob and truncates it to the MTU.
  public typealias ReadHandler = @Sendable (_ connection: GATTServerConnection) async throws -> [UInt8]
  /// Receives a whole written value (a long write arrives once, assembled, at Execute Write).
  public typealias WriteHandler = @Sendable (_ write: GATTWrite) async throws -> Void

  public var uuid: BluetoothUUID
  public var properties: GATTCharacteristicProperties
  /// The stored value: returned by reads when there is no `onRead`, replaced by writes when there is no
  /// `onWrite`. Shared by every connection to the device.
  public var value: [UInt8]
  public var onRead: ReadHandler?
  public var onWrite: WriteHandler?
  /// Descriptors other than the automatic CCCD (e.g. 0x2901 User Description).
  public var descriptors: [SimulatedDescriptor]
  /// When true, writes fail with CCCD Improperly Configured (0xFD, Core Supplement Part B §1.2.2) unless
  /// this connection enabled notifications or indications first — as a Nordic DFU control point does.
  public var requiresSubscriptionForWrites: Bool
  /// Run after the Write Response when a connection turns notifications on (a text-stream device that
  /// greets its client).
  public var onSubscribe: (@Sendable (_ connection: GATTServerConnection) async -> Void)? = nil

  public init(
    uuid: BluetoothUUID, properties: GATTCharacteristicProperties, value: [UInt8] = [],
    descriptors: [SimulatedDescriptor] = [], requiresSubscriptionForWrites: Bool = false,
    onRead: ReadHandler? = nil, onWrite: WriteHandler? = nil
  ) {
    self.uuid = uuid
    self.properties = properties
    self.value = value
    self.descriptors = descriptors
    self.requiresSubscriptionForWrites = requiresSubscriptionForWrites
    self.onRead = onRead
    self.onWrite = onWrite
  }

  /// A written characteristic whose behaviour is given as a trailing closure:
  /// `SimulatedCharacteristic(uuid: u, properties: [.write]) { write in … }`.
  public init(
    uuid: BluetoothUUID, properties: GATTCharacteristicProperties, value: [UInt8] = [],
    descriptors: [SimulatedDescriptor] = [], requiresSubscriptionForWrites: Bool = false,
    write: @escaping WriteHandler
  ) {
    self.init(
      uuid: uuid, properties: properties, value: value, descriptors: descriptors,
      requiresSubscriptionForWrites: requiresSubscriptionForWrites, onRead: nil, onWrite: write)
  }
}

/// A descriptor with a stored value (not the CCCD, which the server adds and manages).
public struct SimulatedDescriptor: Sendable {
  public var uuid: BluetoothUUID
  public var value: [UInt8]
  public var isWritable: Bool

  public init(uuid: BluetoothUUID, value: [UInt8], isWritable: Bool = false) {
    self.uuid = uuid
    self.value = value
    self.isWritable = isWritable
  }

  /// A Characteristic User Description (0x2901, Part G §3.3.3.2).
  public static func userDescription(_ text: String) -> SimulatedDescriptor {
    SimulatedDescriptor(uuid: GATTAttributeType.userDescription, value: Array(text.utf8))
  }
}

/// A write as a handler sees it.
public struct GATTWrite: Sendable {
  public enum Kind: Sendable, Hashable {
    /// Write Request (answered after the handler returns).
    case request
    /// Write Command (no answer; a thrown error is dropped, §3.4.5.3).
    case command
    /// Prepare Write … Execute Write, assembled.
    case long
  }

  public var value: [UInt8]
  public var kind: Kind
  public var valueHandle: UInt16
  /// The link the write came on: use it to notify or indicate in reply.
  public var connection: GATTServerConnection
}
