import BeaconCore
import Glibc
import Testing

@testable import BlueZ

/// The one reader loop under `HCISocket` and `MgmtSocket`, on a `socketpair(AF_UNIX, SOCK_SEQPACKET)` with
/// a toy packet format (first byte 1 = the reply to command 1, 0xFF = undecodable, anything else an event);
/// the wake pipes that end blocked waits; and errno messages through `strerror_r`.
@Suite("Socket reader, wake pipes, errno text", .timeLimit(.minutes(1))) struct SocketReaderTests {
  typealias Reader = SocketReader<UInt8, [UInt8], [UInt8]>
  static let closed = BlueZError(errno: EBADF, call: "test socket closed", adapter: "hci9")

  /// A reader on one end of a fresh pair; the other end is the test's "controller".
  func start() throws -> (
    handle: SocketHandle, peer: Int32, replies: PendingReplies<UInt8, [UInt8]>,
    events: AsyncStream<[UInt8]>
  ) {
    let (a, b) = SocketPlumbingTests.pair()
    let handle = try SocketHandle(adopting: a, adapter: "hci9")
    let replies = PendingReplies<UInt8, [UInt8]>()
    let subscribers = EventSubscribers<[UInt8]>()
    let events = subscribers.subscribe()
    Reader(
      handle: handle, replies: replies, subscribers: subscribers, capacity: 64, call: "read(test)",
      decode: { (packet: [UInt8]) -> Reader.Decoded? in
        if packet.first == 0xFF { return nil }
        return (event: packet, reply: packet.first == 1 ? (key: 1, value: packet) : nil)
      }
    ).start("test-reader", closed: Self.closed)
    return (handle, b, replies, events)
  }

  func send(_ packets: [[UInt8]], to fd: Int32) {
    for packet in packets { _ = packet.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) } }
  }

  func command(_ replies: PendingReplies<UInt8, [UInt8]>, _ peerAnswers: () -> Void) async throws -> [UInt8] {
    try await replies.wait(for: 1, timeout: .seconds(30), timeoutError: { CancellationError() }, send: peerAnswers)
  }

  @Test func repliesReachTheirCommandEventsEveryoneAndCloseEndsBoth() async throws {
    let (handle, peer, replies, events) = try start()
    defer { close(peer) }
    // The peer answers with an undecodable packet (skipped), an event, then the reply.
    let reply = try await command(replies) { send([[0xFF], [2, 0], [1, 7]], to: peer) }
    #expect(reply == [1, 7])
    var received = events.makeAsyncIterator()
    #expect(await received.next() == [2, 0])
    #expect(await received.next() == [1, 7])
    handle.close()
    #expect(await received.next() == nil)  // the stream finishes once the reader has stopped…
    // …after failing pending and later commands with the reason.
    await #expect(throws: Self.closed) { try await command(replies) {} }
  }

  @Test func thePeerGoingAwayFailsWaitingCommands() async throws {
    let (handle, peer, replies, events) = try start()
    defer { handle.close() }
    await #expect(throws: BlueZError(errno: ECONNRESET, call: "read(test)", adapter: "hci9")) {
      try await command(replies) { close(peer) }
    }
    for await _ in events {}  // finishes
  }

  /// Both ends of every wake pipe are close-on-exec (a `Process` started elsewhere must not inherit them)
  /// and non-blocking, from creation (`pipe2`).
  @Test func wakePipesAreCloseOnExecAndNonBlocking() throws {
    let (a, b) = SocketPlumbingTests.pair()
    let handle = try SocketHandle(adopting: a, adapter: "hci9")
    defer { handle.close() }
    let bearer = try FileDescriptorBearer(fileDescriptor: b, peer: BluetoothAddress(rawValue: 1))
    defer { bearer.closeNow() }
    for pipe in [handle.wakePipe, bearer.wakePipe] {
      for end in [pipe.readEnd, pipe.writeEnd] {
        #expect(fcntl(end, F_GETFD) & FD_CLOEXEC != 0)
        #expect(fcntl(end, F_GETFL) & O_NONBLOCK != 0)
      }
    }
  }

  /// glibc's messages (its `errlist`), also from many threads at once; an unknown code says so.
  @Test func errnoTextIsTheCLibraryMessage() async {
    #expect(ErrnoText.message(EBADF) == "Bad file descriptor")
    #expect(ErrnoText.message(ETIMEDOUT) == "Connection timed out")
    #expect(ErrnoText.message(123_456) == "Unknown error 123456")
    #expect(
      BlueZError(errno: EHOSTDOWN, call: "connect(L2CAP LE)").description == "connect(L2CAP LE) failed: Host is down")
    let texts = await withTaskGroup(of: (Int32, String).self) { group in
      for code in Int32(200_000)..<200_064 { group.addTask { (code, ErrnoText.message(code)) } }
      return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
    }
    #expect(texts.allSatisfy { $0.value == "Unknown error \($0.key)" })
  }
}
