import BeaconCore
import Glibc
import OwnThreads
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
    // A non-blocking sending end (as a non-blocking connect leaves it) with a small send buffer that the
    // test fills before the bearer's first send, so send(2) returns EAGAIN at once; the raw receiving end
    // is read only afterwards.
    var fds: [Int32] = [-1, -1]
    #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0)
    _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
    var size: Int32 = 4096
    _ = setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    let pad = [UInt8](repeating: 0xEE, count: 200)
    let filler = [0x00] + pad
    var fillers = 0
    while filler.withUnsafeBytes({ Glibc.send(fds[0], $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) > 0 {
      fillers += 1
    }
    #expect(errno == EAGAIN && fillers > 0)
    let sender = try FileDescriptorBearer(fileDescriptor: fds[0], peer: BluetoothAddress(rawValue: 3))
    let receiver = fds[1]
    let count = 200
    let sending = Task {
      for i in 0..<count { try await sender.send([0x52, 0x01, 0x00, UInt8(i)] + pad) }
    }
    // Blocking reads on a thread of their own: the filler, then every PDU in order. A minute without data
    // means the sender gave up (its error is thrown below); the receiving end is then shut down, so a
    // sender still waiting for room fails instead of waiting forever (under AddressSanitizer on a loaded
    // machine the sending task once started only after a 10 s wait had given up, and the test hung).
    let total = fillers + count
    let received = await OwnThread.run("test-receiver") { () -> [[UInt8]] in
      var packets: [[UInt8]] = []
      var buffer = [UInt8](repeating: 0, count: 512)
      while packets.count < total {
        var ready = pollfd(fd: receiver, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 60_000) == 1 else { break }
        let n = buffer.withUnsafeMutableBytes { recv(receiver, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { break }
        packets.append(Array(buffer[0..<n]))
      }
      if packets.count < total { _ = shutdown(receiver, Int32(SHUT_RDWR)) }
      return packets
    }
    try await sending.value
    #expect(received.prefix(fillers).allSatisfy { $0 == filler })
    #expect(Array(received.dropFirst(fillers)) == (0..<count).map { [0x52, 0x01, 0x00, UInt8($0)] + pad })
    await sender.close()
    close(receiver)
  }
}
