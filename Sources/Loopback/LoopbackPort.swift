import Glibc

/// TCP on 127.0.0.1, for starting local servers: a port nothing listens on, and whether a port accepts
/// connections now. Shared by the tests' real servers (Tests/TestServers: the HTTP client is tested against real servers, not
/// mocks) and `provision-bench http-download`, which cannot import test code. Both calls are blocking
/// socket work: call them off Swift's cooperative pool.
public enum LoopbackPort {
  /// A port nothing listens on right now (bound to 0, read back and released; another program may take it
  /// before the caller does, which on a test machine's loopback is harmless); nil when none is given.
  public static func free() -> Int? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var address = loopback(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
  }

  /// Whether a TCP connection to 127.0.0.1:port is accepted now (it is closed at once).
  public static func accepts(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = loopback(port: port)
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }

  private static func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
  }
}
