import Foundation
import Glibc
import NordicDFU
import OwnThreads

/// A `ByteChannel` over a file descriptor (a tty or a pty master), for the serial transport of
/// docs/protocols/nordic-dfu.md §4. The descriptor is switched to non-blocking mode. Reads run on a dedicated thread (`OwnThread`)
/// that sleeps in `poll` on the descriptor and a wake pipe (never on the cooperative pool, no timeout
/// loop); writes run on a thread of their own (`SerialThread`) and, when the descriptor is full, sleep in `poll`
/// for POLLOUT or the wake pipe. `close()` writes the wake pipe, waits for the reader to leave, then closes
/// the descriptor on the write queue — behind every queued write — so no side ever uses a closed (or
/// reused) descriptor. End of file, EIO and POLLHUP (the other side hung up) finish `incoming` with
/// `SerialPortError.hangup`.
public final class FileDescriptorChannel: ByteChannel {
  public let incoming: AsyncThrowingStream<[UInt8], any Error>
  private let fd: Int32
  private let wake: WakePipe?
  private let lifecycle = ChannelLifecycle()
  private let writeQueue = SerialThread(name: "fd-channel-writer")

  /// Takes ownership of `fd` (closed by `close()`).
  public init(fd: Int32) {
    self.fd = fd
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
    incoming = stream
    let prepared = Self.prepare(fd)
    wake = try? prepared.get()
    guard let wake else {
      // No reader without a wake pipe: the channel is born finished, and `close()` just closes `fd`.
      if case .failure(let error) = prepared { continuation.finish(throwing: error) }
      lifecycle.readerGone.open()
      return
    }
    OwnThread.start("fd-channel-reader") { [fd, continuation, lifecycle] in
      Self.readLoop(fd: fd, wake: wake.readEnd, continuation: continuation)
      lifecycle.readerGone.open()
    }
  }

  /// Makes `fd` non-blocking and opens the wake pipe.
  private static func prepare(_ fd: Int32) -> Result<WakePipe, SerialPortError> {
    let flags = fcntl(fd, F_GETFL)
    guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { return .failure(.configure(errno: errno)) }
    return Result { () throws(SerialPortError) in try WakePipe() }
  }

  /// Reads until the wake pipe is written (`close()`), the peer hangs up, or an error.
  private static func readLoop(
    fd: Int32, wake: Int32, continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
  ) {
    var buffer = [UInt8](repeating: 0, count: 4096)
    var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
    while true {
      fds[0].revents = 0
      fds[1].revents = 0
      if Interrupted.retry({ poll(&fds, 2, -1) }) < 0 {
        return continuation.finish(throwing: SerialPortError.io(errno: errno))
      }
      if fds[1].revents != 0 { return continuation.finish() }
      guard fds[0].revents & Int16(POLLNVAL) == 0 else {
        return continuation.finish(throwing: SerialPortError.io(errno: EBADF))
      }
      let n = Interrupted.retry { buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) } }
      if n > 0 {
        continuation.yield(Array(buffer[0..<n]))
        continue
      }
      if n < 0, errno == EAGAIN { continue }
      // End of file or EIO (with POLLHUP): the peer closed its side.
      return continuation.finish(throwing: SerialPortError.hangup)
    }
  }

  public func write(_ bytes: [UInt8]) async throws {
    guard let wake, !lifecycle.isClosing else { throw SerialPortError.closed }
    try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
      writeQueue.async { [fd] in
        done.resume(with: Result { try Self.writeAll(bytes, fd: fd, wake: wake.readEnd) })
      }
    }
  }

  /// Writes every byte; when the descriptor is full, sleeps until it drains or `close()` wakes it.
  private static func writeAll(_ bytes: [UInt8], fd: Int32, wake: Int32) throws(SerialPortError) {
    var sent = 0
    while sent < bytes.count {
      let n = Interrupted.retry {
        bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + sent, bytes.count - sent) }
      }
      if n >= 0 {
        sent += n
        continue
      }
      switch errno {
      case EAGAIN:
        var fds = [
          pollfd(fd: fd, events: Int16(POLLOUT), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
        ]
        guard Interrupted.retry({ poll(&fds, 2, -1) }) >= 0 else { throw .io(errno: errno) }
        if fds[1].revents != 0 { throw .closed }
      default: throw .io(errno: errno)
      }
    }
  }

  /// Stops the reader and returns once the descriptor is closed, so a port reopened right after never
  /// shares its bytes with a reader still draining the old descriptor. Later calls just wait for that.
  public func close() async {
    if lifecycle.beginClosing() {
      wake?.signal()
      await lifecycle.readerGone.wait()
      await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        writeQueue.async { [fd, wake] in
          Glibc.close(fd)
          wake?.closeBoth()
          done.resume()
        }
      }
      writeQueue.finish()
      lifecycle.closed.open()
    }
    await lifecycle.closed.wait()
  }
}
