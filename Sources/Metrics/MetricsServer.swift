import Glibc
import OwnThreads
import Synchronization

/// The HTTP server behind `--metrics` (`/metrics`, `/healthz`, and the monitor's `/presence`): a listening
/// socket served by one thread of its own (`OwnThread`), one connection at a time, one request each
/// (`HTTPExchange`). Routes are closures that read snapshots the scan loop keeps (`MetricsRegistry`, a
/// `Mutex`), so answering never waits for the scan and the scan never waits for a client.
///
/// [I] Our own server over BSD sockets rather than a package (swift-nio, Hummingbird, FlyingFox,
/// swift-prometheus were all available offline): three read-only GET routes scraped every few seconds need
/// none of an event loop's machinery, and the binary keeps its three dependencies. The cost is that a slow
/// client holds the next one back for at most its 2 s socket timeouts (each request is read with a bounded
/// head, `HTTPExchange.headLimit`, and answered with `Connection: close`).
public final class MetricsServer: Sendable {
  /// The address it listens on, `HOST:PORT` with the port actually bound (for `--metrics HOST:0`).
  public let address: String
  private let listener: Int32
  /// Written to by `stop()`, polled beside the listener.
  private let wake: (read: Int32, write: Int32)
  private let stopped = Mutex(false)

  /// Binds and starts serving `routes` (path → answer) on a thread named `name`.
  public init(
    _ endpoint: MetricsEndpoint, name: String = "metrics-http", routes: [String: @Sendable () -> HTTPExchange.Response]
  ) throws(MetricsServerError) {
    let (fd, address) = try Sockets.listen(endpoint)
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else {
      close(fd)
      throw MetricsServerError("--metrics: pipe: \(String(cString: strerror(errno)))")
    }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    self.listener = fd
    self.address = address
    self.wake = (ends[0], ends[1])
    let wakeRead = ends[0]
    OwnThread.start(name) { Self.serve(listener: fd, wake: wakeRead, routes: routes) }
  }

  /// Stops accepting; the thread closes the sockets when it sees it. Idempotent.
  public func stop() {
    let first = stopped.withLock { was in
      defer { was = true }
      return !was
    }
    guard first else { return }
    var byte: UInt8 = 1
    _ = write(wake.write, &byte, 1)
  }

  deinit { stop() }

  /// The accept loop: until the wake pipe is written, each connection is answered and closed.
  private static func serve(listener: Int32, wake: Int32, routes: [String: @Sendable () -> HTTPExchange.Response]) {
    defer {
      close(listener)
      close(wake)
    }
    var fds = [
      pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
    ]
    while true {
      let n = Interrupted.retry { poll(&fds, 2, -1) }
      guard n > 0, fds[1].revents == 0 else { return }
      let connection = accept(listener, nil, nil)
      guard connection >= 0 else { continue }
      // [I] Close-on-exec set after accept (Glibc's module does not export accept4): a command action
      // started in between could inherit this connection for the moment it takes; it carries no secret.
      _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
      answer(connection, routes: routes)
      close(connection)
    }
  }

  /// Reads one bounded request head and writes the answer.
  private static func answer(_ fd: Int32, routes: [String: @Sendable () -> HTTPExchange.Response]) {
    Sockets.setTimeouts(fd, seconds: 2)
    var head: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 2048)
    var end: Int?
    while end == nil && head.count <= HTTPExchange.headLimit {
      let n = Interrupted.retry { buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) } }
      if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
        Interrupted.writeAll(fd, HTTPExchange.bytes(.plain(408, "request timeout"), isHead: false), socket: true)
        return
      }
      guard n > 0 else { return }
      head += buffer[0..<n]
      end = HTTPExchange.headEnd(head)
    }
    guard let end, end <= HTTPExchange.headLimit else {
      let limit = HTTPExchange.headLimit
      Interrupted.writeAll(
        fd, HTTPExchange.bytes(.plain(431, "request head over \(limit) bytes"), isHead: false), socket: true)
      // Closing with the rest of the request unread would reset the connection, and the client could lose
      // the answer (RFC 9112 §9.6, the staged close): say we are done, and discard what it still sends (at
      // most 64 KiB, or its 2 s timeout).
      shutdown(fd, Int32(SHUT_WR))
      var discarded = 0
      while discarded < 1 << 16 {
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { break }
        discarded += n
      }
      return
    }
    let (response, isHead) = HTTPExchange.answer(head: Array(head[0..<end]), routes: routes)
    Interrupted.writeAll(fd, HTTPExchange.bytes(response, isHead: isHead), socket: true)
  }
}
