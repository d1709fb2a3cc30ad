import Foundation
import Loopback
import Testing

/// `reconcile --webhook`: every event reaches a real HTTP receiver as the same JSON object `--jsonl`
/// prints, through the monitor's spool — so events of a run whose receiver was down are delivered by the next
/// start, each once (the receiver records a repeated `Idempotency-Key` as a duplicate).
@Suite(.serialized, .timeLimit(.minutes(3))) struct ReconcileWebhookTests {
  /// The receiver's record file: each POST's idempotency key, body and whether the key was seen before.
  static func received(_ file: String) throws -> [(key: String, duplicate: Bool, body: [String: Any])] {
    guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return [] }
    return try text.split(separator: "\n").map { line in
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      return (
        try #require(object["key"] as? String), object["duplicate"] as? Bool ?? true,
        try #require(object["body"] as? [String: Any])
      )
    }
  }

  @Test func eventsOfARunWhoseReceiverWasDownAreDeliveredByTheNextStartEachOnce() async throws {
    let site = try ReconcileProcess(devices: ["", ""])
    let port = try #require(LoopbackPort.free())
    let record = site.folder + "/received.jsonl"
    let url = "http://127.0.0.1:\(port)/hook"

    // The receiver is down: the run converges both devices, its events stay spooled.
    try site.start(["--once", "--webhook", url])
    #expect(await site.exitStatus() == 0)
    #expect(site.errorLines.contains { $0.contains("stay spooled for the next start") }, "\(site.errorLines)")
    let firstRun = site.events("converged")
    #expect(firstRun.count == 2 && firstRun.allSatisfy { $0.keys?.isEmpty == false })
    #expect(try Self.received(record).isEmpty)

    // Up again: the next start delivers the spooled events, then its own (a connected re-check finds both
    // devices compliant: --recheck 1s makes them due again).
    let receiver = try await WebhookReceiver.start(port: port, record: record)
    try await Task.sleep(for: .seconds(1))
    try site.start(["--once", "--webhook", url, "--recheck", "1s"])
    #expect(await site.exitStatus() == 0)
    let received = try Self.received(record)
    await receiver.stop()
    #expect(received.allSatisfy { !$0.duplicate }, "a key delivered twice")
    #expect(Set(received.map(\.key)).count == received.count)
    let converged = received.filter { $0.body["event"] as? String == "converged" }
    let wrote = converged.filter { ($0.body["keys"] as? [String])?.isEmpty == false }
    let checked = converged.filter { ($0.body["keys"] as? [String])?.isEmpty == true }
    // The first run's two writes (from the spool) and the second run's two compliant checks.
    #expect(wrote.count == 2 && checked.count == 2, "\(received.map(\.body))")
    #expect(
      Set(wrote.compactMap { $0.body["address"] as? String })
        == [ReconcileProcess.address(0), ReconcileProcess.address(1)])
    // The body is the event --jsonl printed: the same time stamp and keys.
    let printed = Set(site.events("converged").map(\.at))
    #expect(Set(converged.compactMap { $0.body["at"] as? String }) == printed)
  }
}
