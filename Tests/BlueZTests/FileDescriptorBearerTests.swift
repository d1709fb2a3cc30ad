import BeaconCore
import Glibc
import Testing

@testable import BlueZ

/// The fd-based ATT bearer over a `socketpair(AF_UNIX, SOCK_SEQPACKET)`, the same shape as an L2CAP LE
/// socket: PDU boundaries kept, clean idempotent close, link loss reported as `LinkError(.disconnected)`.
@Suite struct FileDescriptorBearerTests {
  func pair() throws -> (FileDescriptorBearer, FileDescriptorBearer) {
    var fds: [Int32] = [-1, -1]
    #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0)
    let a = try FileDescriptorBearer(fileDescriptor: fds[0], peer: BluetoothAddress(rawValue: 1))
    let b = try FileDescriptorBearer(fileDescriptor: fds[1], peer: BluetoothAddress(rawValue: 2))
    return (a, b)
  }

  @Test func keepsPDUBoundaries() async throws {
    let (a, b) = try pair()
    let pdus: [[UInt8]] = [[0x0A, 0x03, 0x00], [0x13], [0x1B, 0x10, 0x00] + [UInt8](repeating: 0x55, count: 244), []]
    for pdu in pdus.dropLast() { try await a.send(pdu) }
    var received: [[UInt8]] = []
    for try await pdu in b.incoming {
      received.append(pdu)
      if received.count == 3 { break }
    }
    #expect(received == Array(pdus.dropLast()))
    await a.close()
    await b.close()
  }

  @Test func peerCloseEndsIncomingWithDisconnected() async throws {
    let (a, b) = try pair()
    await a.close()
    await #expect(throws: LinkError(.disconnected, peer: BluetoothAddress(rawValue: 2), detail: "peer closed the link")) {
      for try await _ in b.incoming {}
    }
    await #expect(throws: LinkError.self) { try await b.send([0x13]) }
    await b.close()
  }

  @Test func localCloseIsIdempotentAndWakesTheReader() async throws {
    let (a, b) = try pair()
    let reader = Task { () -> LinkError? in
      do {
        for try await _ in a.incoming {}
        return nil
      } catch { return error as? LinkError }
    }
    await a.close()
    await a.close()
    #expect(await reader.value?.code == .closed)
    await #expect(throws: LinkError(.closed, peer: BluetoothAddress(rawValue: 1))) { try await a.send([0x13]) }
    await b.close()
  }
}
