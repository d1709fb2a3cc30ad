import BeaconCore
import Glibc
import Testing

@testable import BlueZ

/// The socket plumbing under the live layer, on `socketpair(AF_UNIX, SOCK_SEQPACKET)` (same packet
/// boundaries as L2CAP): message-preserving send/receive, close waking a blocked receiver, ownership
/// hand-over, and reply waiters (each reply to its waiter, cancellation).
@Suite(.timeLimit(.minutes(2))) struct SocketPlumbingTests {
  static func pair() -> (Int32, Int32) {
    var fds: [Int32] = [0, 0]
    precondition(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0)
    return (fds[0], fds[1])
  }

  static let peer = BluetoothAddress("11:22:33:44:55:66")!

  @Test func connectionKeepsPacketBoundaries() async throws {
    let (a, b) = Self.pair()
    let left = L2CAPConnection(
      handle: try SocketHandle(adopting: a, adapter: "hci0"), adapter: "hci0", peer: Self.peer, peerType: .public)
    let right = L2CAPConnection(
      handle: try SocketHandle(adopting: b, adapter: "hci1"), adapter: "hci1", peer: Self.peer, peerType: .random)
    try left.send([0x02, 0x17, 0x00])
    try left.send([0x0A, 0x03, 0x00])
    #expect(try await right.receive(timeout: .seconds(5)) == [0x02, 0x17, 0x00])
    #expect(try await right.receive(timeout: .seconds(5)) == [0x0A, 0x03, 0x00])
    left.close()
    // The peer's end is gone: the next receive reports a disconnection.
    await #expect(throws: LinkError.self) { try await right.receive(timeout: .seconds(5)) }
    right.close()
  }

  @Test func closeWakesABlockedReceiver() async throws {
    let (a, b) = Self.pair()
    defer { close(b) }
    let connection = L2CAPConnection(
      handle: try SocketHandle(adopting: a, adapter: "hci0"), adapter: "hci0", peer: Self.peer, peerType: .public)
    let waiting = Task { try await connection.receive() }  // no timeout: only close() can end it
    connection.close()
    await #expect(throws: LinkError(.closed, peer: Self.peer)) { try await waiting.value }
  }

  @Test func receiveTimesOut() async throws {
    let (a, b) = Self.pair()
    defer { close(b) }
    let connection = L2CAPConnection(
      handle: try SocketHandle(adopting: a, adapter: "hci0"), adapter: "hci0", peer: Self.peer, peerType: .public)
    defer { connection.close() }
    await #expect(throws: ControllerCommandError.timeout(command: "L2CAP receive", adapter: "hci0")) {
      try await connection.receive(timeout: .milliseconds(20))
    }
  }

  @Test func takingTheDescriptorLeavesItOpen() async throws {
    let (a, b) = Self.pair()
    defer { close(b) }
    let connection = L2CAPConnection(
      handle: try SocketHandle(adopting: a, adapter: "hci0"), adapter: "hci0", peer: Self.peer, peerType: .public)
    let fd = try #require(connection.takeDescriptor())
    #expect(connection.takeDescriptor() == nil)
    connection.close()  // must not close the handed-over descriptor
    var byte: UInt8 = 0x42
    #expect(write(fd, &byte, 1) == 1)
    close(fd)
    #expect(throws: BlueZError.self) { try connection.send([0x01]) }
  }

  @Test func repliesReachTheirWaitersAndCancellationIsPrompt() async throws {
    let replies = PendingReplies<UInt16, Int>()
    // `wait` calls its `send` once the waiter is registered: that is the signal to answer.
    let (registered, registration) = AsyncStream.makeStream(of: Void.self)
    var registrations = registered.makeAsyncIterator()
    let first = Task {
      try await replies.wait(for: 7, timeout: .seconds(30), timeoutError: { CancellationError() }) {
        registration.yield()
      }
    }
    _ = await registrations.next()
    #expect(replies.resolve(7, with: 1))
    let second = Task {
      try await replies.wait(for: 7, timeout: .seconds(30), timeoutError: { CancellationError() }) {
        registration.yield()
      }
    }
    _ = await registrations.next()
    #expect(replies.resolve(7, with: 2))
    #expect(try await first.value == 1)
    #expect(try await second.value == 2)
    let waiter = Task {
      try await replies.wait(for: 9, timeout: .seconds(30), timeoutError: { CancellationError() }) {}
    }
    waiter.cancel()
    await #expect(throws: CancellationError.self) { try await waiter.value }
    #expect(!replies.resolve(9, with: 3))  // the cancelled waiter is gone
  }
}
