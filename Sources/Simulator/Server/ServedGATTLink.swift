import BeaconCore
import BlueZ

/// Serves a simulated device's `GATTServer` over a live ATT bearer — an accepted L2CAP LE socket on CID 4
/// (docs/protocols/vm-e2e.md) — with the same request → response code as the simulated links (`SimulatedLink`),
/// minus the link model and faults: the real link has its own timing.
///
/// Like `SimulatedLink`, a reader routes Handle Value Confirmations straight to the connection (a write
/// handler waiting on an indication must not block the request queue) and queues everything else; a
/// responder answers queued PDUs in order, then runs what the handler deferred until after its response
/// (`GATTServerConnection.afterResponse`).
public enum ServedGATTLink {
  /// Serves until the peer or the kernel ends the link (or the task is cancelled); returns how many PDUs
  /// the client sent. The bearer is closed on return.
  public static func serve(_ server: GATTServer, over bearer: FileDescriptorBearer) async -> Int {
    let connection = GATTServerConnection(
      server: server, maxMTU: server.maxMTU, output: { bytes in try await bearer.send(bytes) },
      closeLink: { await bearer.close() })
    await server.attach(connection)
    let (queue, queued) = AsyncStream.makeStream(of: [UInt8].self)
    let responder = Task {
      for await bytes in queue {
        if let response = await connection.respond(to: bytes) {
          do { try await bearer.send(response) } catch { break }
        }
        // What a handler deferred until after its response (a text-stream device's answer),
        // as `SimulatedLink` runs it: without this a served device acked a command and never answered.
        await connection.runDeferred()
      }
    }
    var received = 0
    await withTaskCancellationHandler {
      do {
        for try await bytes in bearer.incoming {
          received += 1
          if case .handleValueConfirmation? = try? ATTPDU(bytes) {
            await connection.confirmationReceived()
          } else {
            queued.yield(bytes)
          }
        }
      } catch {}
    } onCancel: {
      bearer.closeNow()
    }
    queued.finish()
    _ = await responder.result
    await bearer.close()
    await connection.linkEnded()
    await server.detach(connection)
    return received
  }
}
