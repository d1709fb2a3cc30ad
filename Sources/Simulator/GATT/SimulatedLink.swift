import BeaconCore
import BlueZ
import Glibc

/// One simulated LE connection: a `socketpair(AF_UNIX, SOCK_SEQPACKET)` whose client end is handed to the
/// central as a `FileDescriptorBearer` (the same bearer code as a live L2CAP socket) and whose device end
/// is served here by a `GATTServerConnection`, under a `LinkModel` and `LinkFaults` (docs/protocols/simulator.md "The
/// simulator").
///
/// Two tasks serve the device end: a reader that applies faults, paces Write Commands (so many per
/// connection event), routes Handle Value Confirmations straight to the connection (so a handler waiting
/// on an indication never blocks the request queue), and queues everything else, stamped with the instant it
/// arrived; and a server that answers queued PDUs in order, one connection interval per request. The
/// interval is counted from the request's arrival (or from the previous answer, when the device was still
/// busy with it), as a device answers at the connection event after the one that brought the request: the
/// time the simulator's own tasks take to pick the request up is inside the interval, not added to it. When
/// the device drops the link (`disconnect()`, a reboot, a DFU target's drop fault), PDUs still in that queue
/// are discarded: a drop at byte N means the device never sees byte N + 1.
public final class SimulatedLink: Sendable {
  public let connection: GATTServerConnection
  /// The server task: ends once the link has ended and every queued PDU is answered or discarded.
  private let served: Task<Void, Never>

  private init(connection: GATTServerConnection, served: Task<Void, Never>) {
    self.connection = connection
    self.served = served
  }

  /// Connects a client to `server`. Returns the client's bearer and the link (to disconnect it or reach
  /// the server-side connection). `capacity`, when given, is held until the link ends.
  public static func open(
    to server: GATTServer, device: BluetoothAddress, central: BluetoothAddress = BluetoothAddress(rawValue: 0),
    model: LinkModel = .instant, faults: LinkFaults = .none, capacity: LinkCapacity? = nil
  ) async throws -> (bearer: FileDescriptorBearer, link: SimulatedLink) {
    try await capacity?.acquire(for: device)
    var fds: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
      await capacity?.release()
      throw LinkError(.connectFailed, peer: device, detail: "socketpair: \(ErrnoText.message(errno))")
    }
    // The client's send buffer stands in for the controller's ACL buffers: about one connection event of
    // Write Commands fits (the kernel doubles the value and keeps a floor of ~4.6 kB), then send(2) blocks
    // and the client's `writeWithoutResponse` waits, as over a real link.
    var sendBuffer = Int32(max(1, model.writesWithoutResponsePerEvent) * 512)
    _ = setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &sendBuffer, socklen_t(MemoryLayout<Int32>.size))
    let clientBearer: FileDescriptorBearer
    let deviceBearer: FileDescriptorBearer
    do {
      clientBearer = try FileDescriptorBearer(fileDescriptor: fds[0], peer: device)
      deviceBearer = try FileDescriptorBearer(fileDescriptor: fds[1], peer: central)
    } catch {
      await capacity?.release()
      throw LinkError(.connectFailed, peer: device, detail: "\(error)")
    }
    let connection = GATTServerConnection(
      server: server, maxMTU: model.maxMTU, output: { bytes in try await deviceBearer.send(bytes) },
      closeLink: { await deviceBearer.close() })
    await server.attach(connection)
    let served = serve(connection, over: deviceBearer, model: model, faults: faults, capacity: capacity)
    return (clientBearer, SimulatedLink(connection: connection, served: served))
  }

  /// Drops the link from the device side now: the client's `incoming` ends with `LinkError(.disconnected)`,
  /// and nothing the client sent is served after this (`GATTServerConnection.disconnect()`).
  public func disconnect() async {
    await connection.disconnect()
  }

  /// Waits until the link has ended and the device has answered or discarded everything it received.
  func finished() async {
    await served.value
  }

  /// Starts the reader and returns the server task.
  private static func serve(
    _ connection: GATTServerConnection, over bearer: FileDescriptorBearer, model: LinkModel, faults: LinkFaults,
    capacity: LinkCapacity?
  ) -> Task<Void, Never> {
    let (queue, queued) = AsyncStream.makeStream(of: ATTPDUEnvelope.self)
    Task {
      var received = 0
      var commandsThisEvent = 0
      do {
        for try await bytes in bearer.incoming {
          // Only so many Write Commands fit in one connection event: after that many, stop reading for one
          // interval; the socket fills and the client's sends wait.
          if let first = bytes.first, ATTOpcode.isCommand(first) {
            commandsThisEvent += 1
            if commandsThisEvent >= model.writesWithoutResponsePerEvent {
              commandsThisEvent = 0
              try? await Task.sleep(for: model.roundTripLatency)
            }
          } else {
            commandsThisEvent = 0
          }
          received += bytes.count
          if let limit = faults.dropAfterBytes, received > limit { break }
          let decoded = try? ATTPDU(bytes)
          if let decoded, let trigger = faults.disconnectWhen, trigger(decoded) { break }
          if case .handleValueConfirmation = decoded {
            await connection.confirmationReceived()
          } else {
            queued.yield(ATTPDUEnvelope(bytes: bytes, opcode: bytes.first ?? 0, arrived: .now))
          }
        }
      } catch {}
      queued.finish()
      await bearer.close()
      await connection.linkEnded()
      await connection.server.detach(connection)
      await connection.server.onDisconnect?(connection)
      await capacity?.release()
    }
    return Task {
      var answered = 0
      var lastAnswer = ContinuousClock.now
      for await envelope in queue {
        if !ATTOpcode.isCommand(envelope.opcode) && model.roundTripLatency > .zero {
          try? await Task.sleep(until: max(envelope.arrived, lastAnswer) + model.roundTripLatency, clock: .continuous)
          lastAnswer = .now
        }
        var response: [UInt8]?
        if let refuse = faults.refuse, let pdu = try? ATTPDU(envelope.bytes), pdu.opcode.isRequest,
          let code = refuse(pdu)
        {
          response = ATTErrorResponse(request: pdu.opcode, handle: pdu.firstHandle, error: code).bytes
        } else {
          response = await connection.respond(to: envelope.bytes)
        }
        if var response {
          if let limit = faults.stopAnsweringAfterRequests, answered >= limit { continue }
          answered += 1
          if answered == faults.corruptResponseNumber { response = Array(response.prefix(1)) }
          try? await bearer.send(response)
        }
        await connection.runDeferred()
      }
    }
  }
}

extension ATTPDU {
  /// The handle an Error Response to this request names: its (starting) handle, or 0x0000.
  var firstHandle: UInt16 {
    switch self {
    case .findInformationRequest(let r): r.startHandle
    case .findByTypeValueRequest(let r): r.startHandle
    case .readByTypeRequest(let r): r.startHandle
    case .readByGroupTypeRequest(let r): r.startHandle
    case .readRequest(let r): r.handle
    case .readBlobRequest(let r): r.handle
    case .writeRequest(let r): r.handle
    case .prepareWriteRequest(let r): r.handle
    default: 0
    }
  }
}

/// A queued client PDU.
struct ATTPDUEnvelope: Sendable {
  var bytes: [UInt8]
  var opcode: UInt8
  /// When the device's reader took it off the link: its answer is due one interval later.
  var arrived: ContinuousClock.Instant
}
