import Glibc
import Testing

@testable import Metrics

/// The server on a real loopback socket, with a client of raw socket calls: a request head over the bound
/// is refused with 431 without being read to its end, and a client that connects and says nothing is timed
/// out (408) after 2 s instead of holding the server: the next client is answered.
@Suite(.timeLimit(.minutes(1))) struct MetricsServerTests {
  static func server() throws -> MetricsServer {
    try MetricsServer(
      MetricsEndpoint(host: "127.0.0.1", port: 0), routes: ["/x": { HTTPExchange.Response(status: 200, body: "yes") }])
  }

  /// Connects to `address` (`127.0.0.1:PORT`).
  static func connect(_ address: String) -> Int32 {
    let port = UInt16(address.split(separator: ":").last!)!
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var peer = sockaddr_in()
    peer.sin_family = sa_family_t(AF_INET)
    peer.sin_port = port.bigEndian
    peer.sin_addr.s_addr = inet_addr("127.0.0.1")
    let ok = withUnsafePointer(to: &peer) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    precondition(ok == 0)
    return fd
  }

  /// Sends `request` (as much as the server takes) and reads the answer to its end.
  static func exchange(_ fd: Int32, _ request: String) -> String {
    defer { close(fd) }
    let bytes = Array(request.utf8)
    _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      guard n > 0 else { break }
      answer += buffer[0..<n]
    }
    return String(decoding: answer, as: UTF8.self)
  }

  @Test func anOversizedHeadIs431AndTheNextRequestIsServed() throws {
    let server = try Self.server()
    defer { server.stop() }
    let big = "GET /x HTTP/1.1\r\nX-Padding: " + String(repeating: "a", count: 20_000) + "\r\n\r\n"
    #expect(Self.exchange(Self.connect(server.address), big).hasPrefix("HTTP/1.1 431 "))
    let answer = Self.exchange(Self.connect(server.address), "GET /x HTTP/1.1\r\nHost: t\r\n\r\n")
    #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n") && answer.hasSuffix("\r\n\r\nyes"))
  }

  @Test func aSilentClientIsTimedOutAndDoesNotHoldTheServer() throws {
    let server = try Self.server()
    defer { server.stop() }
    let silent = Self.connect(server.address)
    let start = ContinuousClock.now
    let answer = Self.exchange(Self.connect(server.address), "GET /x HTTP/1.1\r\n\r\n")
    #expect(answer.hasPrefix("HTTP/1.1 200 OK"))
    #expect(ContinuousClock.now - start < .seconds(5))
    #expect(Self.exchange(silent, "").hasPrefix("HTTP/1.1 408 "))
  }

  @Test func aPortInUseIsAnErrorNamingTheOption() throws {
    let server = try Self.server()
    defer { server.stop() }
    let port = Int(server.address.split(separator: ":").last!)!
    #expect {
      try MetricsServer(MetricsEndpoint(host: "127.0.0.1", port: port), routes: [:])
    } throws: { error in
      "\(error)".hasPrefix("--metrics 127.0.0.1:\(port): cannot listen")
    }
  }
}
