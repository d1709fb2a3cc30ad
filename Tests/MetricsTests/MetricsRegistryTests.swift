import Testing

@testable import Metrics

/// The exposition text (format 0.0.4) and the HTTP exchange, byte for byte; the CLI's MonitorMetricsTests
/// parse a live monitor's exposition with Prometheus' own parsers.
@Suite(.timeLimit(.minutes(1))) struct MetricsRegistryTests {
  @Test func familiesAreRenderedWithHelpTypeAndEscapedLabels() {
    let registry = MetricsRegistry()
    registry.declare("beacon_provision_b_total", .counter, help: "Counted\nthings \\ here", unlabelled: false)
    registry.declare("beacon_provision_a", .gauge, help: "A gauge")
    registry.add("beacon_provision_b_total", 2, labels: ["reason": "say \"hi\"\n", "kind": "x"])
    registry.add("beacon_provision_b_total", labels: ["reason": "say \"hi\"\n", "kind": "x"])
    registry.set("beacon_provision_a", 0.25)
    #expect(
      registry.exposition() == """
        # HELP beacon_provision_a A gauge
        # TYPE beacon_provision_a gauge
        beacon_provision_a 0.25
        # HELP beacon_provision_b_total Counted\\nthings \\\\ here
        # TYPE beacon_provision_b_total counter
        beacon_provision_b_total{kind="x",reason="say \\"hi\\"\\n"} 3

        """)
  }

  @Test func replacingAGaugeFamilyDropsLabelsThatAreGone() {
    let registry = MetricsRegistry()
    registry.declare("beacon_provision_tag_present", .gauge, help: "h", unlabelled: false)
    registry.replace("beacon_provision_tag_present", [(["tag": "a"], 1), (["tag": "b"], 2)])
    registry.replace("beacon_provision_tag_present", [(["tag": "b"], 1)])
    #expect(registry.value("beacon_provision_tag_present", labels: ["tag": "a"]) == nil)
    #expect(registry.value("beacon_provision_tag_present", labels: ["tag": "b"]) == 1)
  }

  @Test func requestsAreRoutedAndBadOnesRefused() {
    let routes: [String: @Sendable () -> HTTPExchange.Response] = ["/x": { .init(status: 200, body: "yes") }]
    func answer(_ head: String) -> (Int, Bool) {
      let (response, isHead) = HTTPExchange.answer(head: Array(head.utf8), routes: routes)
      return (response.status, isHead)
    }
    #expect(answer("GET /x?a=1 HTTP/1.1\r\nHost: h\r\n\r\n") == (200, false))
    #expect(answer("HEAD /x HTTP/1.0\r\n\r\n") == (200, true))
    #expect(answer("POST /x HTTP/1.1\r\n\r\n").0 == 405)
    #expect(answer("GET /y HTTP/1.1\r\n\r\n").0 == 404)
    #expect(answer("GET x HTTP/1.1\r\n\r\n").0 == 400)
    #expect(answer("garbage\r\n\r\n").0 == 400)
    let head = String(decoding: HTTPExchange.bytes(.init(status: 200, body: "yes"), isHead: true), as: UTF8.self)
    #expect(
      head.hasPrefix("HTTP/1.1 200 OK\r\n") && head.contains("Content-Length: 3\r\n") && head.hasSuffix("\r\n\r\n"))
  }

  @Test func endpointsParseAndBadOnesNameTheOption() throws {
    #expect(try MetricsEndpoint("127.0.0.1:9464") == MetricsEndpoint(host: "127.0.0.1", port: 9464))
    #expect(try MetricsEndpoint("[::1]:0") == MetricsEndpoint(host: "::1", port: 0))
    for bad in ["9464", "127.0.0.1:", "127.0.0.1:70000", ":9464", "::1:9464", "[::1]9464"] {
      #expect(throws: MetricsServerError.self) { try MetricsEndpoint(bad) }
    }
  }
}
