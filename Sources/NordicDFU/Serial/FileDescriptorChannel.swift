import Dispatch
import Foundation
import Glibc
import Synchronization

/// A `ByteChannel` over a file descriptor (a tty or a pty master). Reads run on a dedicated `Thread`
/// (poll + read, never on the cooperative pool); writes run on a private serial `DispatchQueue`. With
/// `survivesHangup` the reader keeps waiting when the other side of a pty is closed (EIO / POLLHUP), so a
/// simulated target outlives clients that close and reopen the port between images (§4).
public final class FileDescriptorChannel: ByteChannel {
  public let incoming: AsyncThrowingStream<[UInt8], any Error>
  private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
  private let fd: Int32
  private let closed = StopFlag()
  private let writeQueue = DispatchQueue(label: "beacon-provision.fd-channel.write")

  /// Takes ownership of `fd` (closed when the reader stops after `close()`).
  public init(fd: Int32, survivesHangup: Bool = false) {
    self.fd = fd
    (incoming, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
    let thread = Thread { [fd, continuation, closed] in
      Self.readLoop(fd: fd, survivesHangup: survivesHangup, continuation: continuation, closed: closed)
    }
    thread.name = "fd-channel-reader"
    thread.start()
  }

  private static func readLoop(
    fd: Int32, survivesHangup: Bool, continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation,
    closed: StopFlag
  ) {
    var buffer = [UInt8](repeating: 0, count: 4096)
    defer {
      Glibc.close(fd)
      closed.markExited()
    }
    while !closed.isSet {
      var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let ready = poll(&pfd, 1, 20)
      if ready < 0 {
        if errno == EINTR { continue }
        continuation.finish(throwing: SerialPortError.io(errno: errno))
        return
      }
      if ready == 0 { continue }
      if pfd.revents & Int16(POLLIN) != 0 {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n > 0 {
          continuation.yield(Array(buffer[0..<n]))
          continue
        }
        if n < 0, errno == EINTR || errno == EAGAIN { continue }
      }
      // Hang-up (EOF, EIO or POLLHUP): the peer closed its side.
      if survivesHangup {
        usleep(10_000)
        continue
      }
      continuation.finish(throwing: SerialPortError.hangup)
      return
    }
    continuation.finish()
  }

  public func write(_ bytes: [UInt8]) async throws {
    guard !closed.isSet else { throw SerialPortError.closed }
    try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
      writeQueue.async { [fd] in
        var sent = 0
        while sent < bytes.count {
          let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + sent, bytes.count - sent) }
          if n < 0 {
            if errno == EINTR { continue }
            if errno == EAGAIN {
              usleep(1000)
              continue
            }
            done.resume(throwing: SerialPortError.io(errno: errno))
            return
          }
          sent += n
        }
        done.resume()
      }
    }
  }

  /// Stops the reader and returns once it has closed the descriptor, so a port reopened right after
  /// never shares its bytes with a reader still draining the old descriptor.
  public func close() async {
    closed.set()
    await closed.waitUntilExited()
  }
}

/// A serial-port failure.
public enum SerialPortError: Error, Equatable, Sendable, CustomStringConvertible {
  case open(path: String, errno: Int32)
  case configure(errno: Int32)
  case io(errno: Int32)
  case hangup
  case closed
  case unsupportedBaudRate(Int)

  public var description: String {
    switch self {
    case .open(let path, let e): "cannot open \(path): \(String(cString: strerror(e)))"
    case .configure(let e): "cannot configure the serial port: \(String(cString: strerror(e)))"
    case .io(let e): "serial I/O error: \(String(cString: strerror(e)))"
    case .hangup: "the serial port was hung up"
    case .closed: "the serial port is closed"
    case .unsupportedBaudRate(let b): "unsupported baud rate \(b)"
    }
  }
}

/// The stop request shared between the channel and its reader thread, and the thread's exit signal.
final class StopFlag: Sendable {
  private struct State {
    var stop = false
    var exited = false
    var waiters: [CheckedContinuation<Void, Never>] = []
  }
  private let state = Mutex(State())

  var isSet: Bool { state.withLock { $0.stop } }
  func set() { state.withLock { $0.stop = true } }

  func markExited() {
    let waiters = state.withLock { s in
      s.exited = true
      defer { s.waiters = [] }
      return s.waiters
    }
    for w in waiters { w.resume() }
  }

  func waitUntilExited() async {
    await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
      let done = state.withLock { s in
        if s.exited { return true }
        s.waiters.append(c)
        return false
      }
      if done { c.resume() }
    }
  }
}
