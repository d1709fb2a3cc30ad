import BeaconCore
import Glibc
import Synchronization
import Testing

@testable import BlueZ

/// The fd-based ATT bearer over a `socketpair(AF_UNIX, SOCK_SEQPACKET)`, the same shape as an L2CAP LE
/// socket: PDU boundaries kept, clean idempotent close, link loss reported as `LinkError(.disconnected)`.
@Suite(.timeLimit(.minutes(2))) struct FileDescriptorBearerTests {
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
    await #expect(throws: LinkError(.disconnected, peer: BluetoothAddress(rawValue: 2), detail: "peer closed the link"))
    {
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

  @Test func nonBlockingSocketWaitsInsteadOfFailingWhenFull() async throws {
    // A non-blocking sending end (as a non-blocking connect leaves it) with a small send buffer, and a raw
    // receiving end the test reads only later, so the sender's buffer fills and send(2) returns EAGAIN.
    var fds: [Int32] = [-1, -1]
    #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0)
    _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
    var size: Int32 = 4096
    _ = setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    let sender = try FileDescriptorBearer(fileDescriptor: fds[0], peer: BluetoothAddress(rawValue: 3))
    let receiver = fds[1]
    let count = 200
    let pad = [UInt8](repeating: 0xEE, count: 200)
    let failed = Mutex(false)
    let sending = Task {
      do {
        for i in 0..<count { try await sender.send([0x52, 0x01, 0x00, UInt8(i)] + pad) }
      } catch {
        failed.withLock { $0 = true }
        throw error
      }
    }
    try await Task.sleep(for: .milliseconds(20))  // let the queue fill while nobody reads
    var next = 0
    var buffer = [UInt8](repeating: 0, count: 512)
    while next < count {
      let n = buffer.withUnsafeMutableBytes { recv(receiver, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
      if n < 0 {
        if failed.withLock({ $0 }) { break }
        await Task.yield()
        continue
      }
      #expect(Array(buffer[0..<n]) == [0x52, 0x01, 0x00, UInt8(next)] + pad)
      next += 1
    }
    try await sending.value
    await sender.close()
    close(receiver)
  }
}
