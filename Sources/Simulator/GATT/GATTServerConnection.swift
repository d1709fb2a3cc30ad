import BeaconCore
import Synchronization

/// The server side of one ATT bearer to a `GATTServer`: this link's ATT_MTU, CCCD bits, prepare-write
/// queue and outstanding indication (Core v5.4 Vol 3 Part F §3.4, Part G §3.3.3.3). `respond(to:)` is the
/// request → response function the link loop calls; `notify` / `indicate` push values to the client.
///
/// Devices keep per-connection state (an authenticated session, a DFU object in progress) keyed by `id`,
/// reply to a write after its response with `afterResponse`, and drop the link (a reboot) with
/// `disconnect()`.
public actor GATTServerConnection {
  public nonisolated let server: GATTServer
  /// Unique per connection within this process.
  public nonisolated let id: Int
  /// Where PDUs to the client go (the device end of the link).
  nonisolated let output: @Sendable ([UInt8]) async throws -> Void
  /// Drops the link from the device side.
  nonisolated let closeLink: @Sendable () async -> Void
  private var deferred: [@Sendable () async -> Void] = []
  private static let counter = Atomic<Int>(0)
  /// The ATT_MTU in force on this link: 23 until the client exchanges MTUs.
  public private(set) var mtu = ATTLimits.defaultMTU
  /// CCCD bits per value handle, this connection only (Part G §3.3.3.3: per-client configuration).
  private(set) var cccd: [UInt16: UInt16] = [:]
  var prepareQueue: [ATTPrepareWriteRequest] = []
  /// Prepare Write Requests held at most; more get Prepare Queue Full (0x09).
  static let prepareQueueLimit = 128
  private var indicationWaiter: CheckedContinuation<Void, any Error>?
  private var indicationBusy = false
  private var indicationTurn: [CheckedContinuation<Void, Never>] = []
  private var ended = false
  /// Set by `disconnect()`: the device dropped the link, so PDUs still queued from it are never served.
  private(set) var droppedByDevice = false

  /// The Server Rx MTU this link answers Exchange MTU with: min(device max, link model max).
  public nonisolated let maxMTU: Int

  init(
    server: GATTServer, maxMTU: Int, output: @escaping @Sendable ([UInt8]) async throws -> Void,
    closeLink: @escaping @Sendable () async -> Void
  ) {
    self.server = server
    self.maxMTU = max(ATTLimits.defaultMTU, min(maxMTU, server.maxMTU))
    self.output = output
    self.closeLink = closeLink
    id = Self.counter.add(1, ordering: .relaxed).newValue
  }

  /// Runs `action` once the response to the request being handled has been sent (or at once after a
  /// command): a device answering a written command by notification does so in a later connection event,
  /// after the Write Response, as real devices do.
  public func afterResponse(_ action: @escaping @Sendable () async -> Void) {
    deferred.append(action)
  }

  /// Runs and clears the deferred actions; the link calls this after each PDU it processed.
  func runDeferred() async {
    while !deferred.isEmpty {
      let action = deferred.removeFirst()
      await action()
    }
  }

  /// Drops the link from the device side (a reboot, a disconnect command, a fault at a chosen byte): the
  /// client sees `LinkError(.disconnected)`, and whatever the client sent that the device has not yet
  /// served is lost with the link — `respond(to:)` answers nothing more, so no handler sees a PDU from
  /// after the drop (a Write Command already in the queue would otherwise still reach the device).
  public func disconnect() async {
    droppedByDevice = true
    await closeLink()
  }

  /// True once the link has ended.
  public var isEnded: Bool { ended }

  var table: GATTAttributeTable { server.table }

  // MARK: server-initiated PDUs

  /// True when this connection enabled notifications (bit 0) or indications (bit 1) of `uuid`.
  public func isSubscribed(_ uuid: BluetoothUUID, indications: Bool = false) -> Bool {
    guard let handle = table.valueHandle(of: uuid) else { return false }
    return (cccd[handle] ?? 0) & (indications ? 0x02 : 0x01) != 0
  }

  /// Sends a Handle Value Notification (Part F §3.4.7.1) of `uuid`'s value when this client enabled
  /// notifications; the value is cut to ATT_MTU − 3. Returns whether it was sent.
  @discardableResult
  public func notify(_ uuid: BluetoothUUID, _ value: [UInt8]) async -> Bool {
    guard !ended, let handle = table.valueHandle(of: uuid), (cccd[handle] ?? 0) & 0x01 != 0 else { return false }
    let pdu = ATTHandleValueNotification(handle: handle, value: Array(value.prefix(mtu - 3)))
    do { try await output(pdu.bytes) } catch { return false }
    return true
  }

  /// Sends a Handle Value Indication (Part F §3.4.7.2) when this client enabled indications and waits for
  /// its Handle Value Confirmation; one indication is outstanding at a time, later ones wait. Returns false
  /// when not subscribed; throws `LinkError` when the link ends first.
  @discardableResult
  public func indicate(_ uuid: BluetoothUUID, _ value: [UInt8]) async throws -> Bool {
    guard let handle = table.valueHandle(of: uuid), (cccd[handle] ?? 0) & 0x02 != 0 else { return false }
    try await indicate(handle: handle, value)
    return true
  }

  /// Sends a Handle Value Indication of `value` on `handle` and waits for its confirmation, whatever the
  /// CCCD says (the caller checked it: Service Changed after the table was replaced).
  func indicate(handle: UInt16, _ value: [UInt8]) async throws {
    if indicationBusy { await withCheckedContinuation { indicationTurn.append($0) } }
    indicationBusy = true
    defer {
      if indicationTurn.isEmpty { indicationBusy = false } else { indicationTurn.removeFirst().resume() }
    }
    if ended { throw LinkError(.disconnected) }
    let pdu = ATTHandleValueIndication(handle: handle, value: Array(value.prefix(mtu - 3)))
    try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
      indicationWaiter = waiter
      Task { [output] in
        do { try await output(pdu.bytes) } catch { self.indicationFailed(error) }
      }
    }
  }

  /// Whether this client enabled indications of the value at `handle`.
  func indicationsEnabled(at handle: UInt16) -> Bool { (cccd[handle] ?? 0) & 0x02 != 0 }

  /// The server laid its table out anew: CCCD bits and prepared writes named old handles.
  func databaseReplaced() {
    cccd = [:]
    prepareQueue = []
  }

  private func indicationFailed(_ error: any Error) {
    indicationWaiter?.resume(throwing: error)
    indicationWaiter = nil
  }

  /// A Handle Value Confirmation arrived.
  func confirmationReceived() {
    indicationWaiter?.resume()
    indicationWaiter = nil
  }

  /// The link is gone: a waiting indication fails.
  func linkEnded() {
    ended = true
    indicationFailed(LinkError(.disconnected))
  }

  func setMTU(_ value: Int) { mtu = value }
  func setCCCD(_ bits: UInt16, forValue handle: UInt16) { cccd[handle] = bits }
}
