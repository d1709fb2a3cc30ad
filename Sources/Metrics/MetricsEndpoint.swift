import Glibc
import OwnThreads

/// Where `--metrics HOST:PORT` listens: a numeric address or a host name (`127.0.0.1:9464`, `[::1]:9464`,
/// `localhost:9464`, `0.0.0.0:9464` for every interface); port 0 takes any free port (the bound one is
/// reported by `MetricsServer.address`).
public struct MetricsEndpoint: Sendable, Hashable {
  public var host: String
  public var port: Int

  public init(host: String, port: Int) {
    self.host = host
    self.port = port
  }

  /// Parses `HOST:PORT`; the error names the option and the allowed forms.
  public init(_ text: String, option: String = "--metrics") throws(MetricsServerError) {
    let host: Substring
    let port: Substring
    if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
      host = text[text.index(after: text.startIndex)..<close]
      let rest = text[text.index(after: close)...]
      guard rest.hasPrefix(":") else { throw Self.problem(option, text) }
      port = rest.dropFirst()
    } else if let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") {
      host = text[..<colon]
      port = text[text.index(after: colon)...]
    } else {
      throw Self.problem(option, text)
    }
    guard !host.isEmpty, let number = Int(port), (0...65535).contains(number) else { throw Self.problem(option, text) }
    self.host = String(host)
    self.port = number
  }

  static func problem(_ option: String, _ text: String) -> MetricsServerError {
    MetricsServerError(
      "\(option) '\(text)': expected HOST:PORT with a port 0-65535 (0: any free port), e.g. 127.0.0.1:9464 or [::1]:9464"
    )
  }
}

/// Why the metrics server could not start (an unparsable endpoint, an address that cannot be bound).
public struct MetricsServerError: Error, CustomStringConvertible, Sendable {
  public let description: String
  public init(_ description: String) { self.description = description }
}

/// The BSD-socket calls the server needs, with errors as text.
enum Sockets {
  /// A listening TCP socket on the endpoint (close-on-exec, SO_REUSEADDR) and the address it is bound to.
  static func listen(_ endpoint: MetricsEndpoint) throws(MetricsServerError) -> (fd: Int32, address: String) {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
    var list: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &list)
    guard status == 0, let first = list else {
      throw MetricsServerError("--metrics \(endpoint.host):\(endpoint.port): \(String(cString: gai_strerror(status)))")
    }
    defer { freeaddrinfo(list) }
    let fd = socket(first.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw MetricsServerError("--metrics: socket: \(String(cString: strerror(errno)))") }
    var one: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    guard bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0, Glibc.listen(fd, 16) == 0 else {
      let reason = String(cString: strerror(errno))
      close(fd)
      throw MetricsServerError("--metrics \(endpoint.host):\(endpoint.port): cannot listen: \(reason)")
    }
    return (fd, boundAddress(fd))
  }

  /// `HOST:PORT` (`[HOST]:PORT` for IPv6) of a bound socket, numeric.
  static func boundAddress(_ fd: Int32) -> String {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
    var port = [CChar](repeating: 0, count: Int(NI_MAXSERV))
    let ok = withUnsafeMutablePointer(to: &storage) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(fd, $0, &length) == 0
          && getnameinfo(
            $0, length, &host, socklen_t(host.count), &port, socklen_t(port.count), NI_NUMERICHOST | NI_NUMERICSERV)
            == 0
      }
    }
    guard ok else { return "?" }
    let name = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let number = String(decoding: port.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return name.contains(":") ? "[\(name)]:\(number)" : "\(name):\(number)"
  }

  /// Sets a receive and a send timeout on a connection, so a slow or silent client cannot hold the server.
  static func setTimeouts(_ fd: Int32, seconds: Int) {
    var timeout = timeval(tv_sec: seconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  }
}
