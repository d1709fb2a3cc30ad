import Dispatch
import Glibc
import NordicDFUIO
import OwnThreads
import Testing

/// The serial edge's descriptor channel: close waits for both sides and wakes them without polling.
@Suite("File descriptor channel", .timeLimit(.minutes(1))) struct FileDescriptorChannelTests {
  /// A connected pair of stream sockets: [ours, peer].
  func socketPair() throws -> [Int32] {
    var fds: [Int32] = [-1, -1]
    try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
    return fds
  }

  @Test func closeEndsAWriteBlockedOnAFullDescriptorBeforeClosingIt() async throws {
    let fds = try socketPair()
    defer { Glibc.close(fds[1]) }
    let channel = FileDescriptorChannel(fd: fds[0])
    // nobody reads the peer: a few MiB cannot all fit in the socket buffers, so the write must wait
    let write = Task { try await channel.write([UInt8](repeating: 0x55, count: 8 << 20)) }
    // the peer sees bytes arrive: the write has started. The blocking poll runs on a thread of its own: not
    // the cooperative pool, which the write task itself needs, nor a libdispatch worker — on Linux the same
    // threads (`OwnThread`); a poll on `DispatchQueue.global()` kept the write from starting for its whole 30 s
    // under ThreadSanitizer.
    let peer = fds[1]
    let readable = await OwnThread.run("test-peer-poll") {
      var pfd = pollfd(fd: peer, events: Int16(POLLIN), revents: 0)
      return poll(&pfd, 1, 30_000)
    }
    #expect(readable == 1)
    await channel.close()
    // the write was woken by close and reports it, not an error from a descriptor closed under it
    await #expect(throws: SerialPortError.closed) { try await write.value }
    await #expect(throws: SerialPortError.closed) { try await channel.write([1]) }
  }

  @Test func closeFinishesIncomingWithoutError() async throws {
    let fds = try socketPair()
    defer { Glibc.close(fds[1]) }
    let channel = FileDescriptorChannel(fd: fds[0])
    var byte: UInt8 = 7
    #expect(Glibc.write(fds[1], &byte, 1) == 1)
    var iterator = channel.incoming.makeAsyncIterator()
    #expect(try await iterator.next() == [7])
    await channel.close()
    #expect(try await iterator.next() == nil)
    await channel.close()  // idempotent
  }

  @Test func aHangUpFinishesIncomingWithHangup() async throws {
    let fds = try socketPair()
    let channel = FileDescriptorChannel(fd: fds[0])
    Glibc.close(fds[1])
    await #expect(throws: SerialPortError.hangup) {
      for try await _ in channel.incoming {}
    }
    await channel.close()
  }
}
