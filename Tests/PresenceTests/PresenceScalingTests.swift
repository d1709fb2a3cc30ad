import Foundation
import Presence
import Testing

/// The deadline-heap engine at scale (CPU was quadratic when every sighting ran a tick that sorted and
/// scanned every device): the exits of a fleet half of which goes quiet come at their timeout, all of them,
/// at 1,000 and at 4,000 devices. Its cost is measured where timing belongs, in `provision-bench monitor`
/// (a whole command as a process): a timed assertion here failed on a loaded machine (×8.2 with the fix in).
@Suite(.timeLimit(.minutes(2))) struct PresenceScalingTests {
  static let t0 = Date(timeIntervalSince1970: 1_772_438_400)

  /// `devices` devices heard once a second for `seconds` s (half of them only for the first half), one batch
  /// and one tick a second as `PresenceScan` drives it; returns the time taken and the exits per second.
  static func run(devices: Int, seconds: Int) throws -> (Duration, [Int: Int]) {
    let file = try EventFileDecoder.decode(
      Array(
        #"{"version": 1, "defaults": {"exitTimeout": 3}, "events": [{"name": "in", "trigger": "enter"}, {"name": "out", "trigger": "exit"}]}"#
          .utf8),
      file: "events.json")
    var engine = PresenceEngine(file: file)
    let addresses = (0..<devices).map { String(format: "AA:00:00:00:%02X:%02X", $0 >> 8, $0 & 0xff) }
    var exits: [Int: Int] = [:]
    let clock = ContinuousClock()
    let took = clock.measure {
      for second in 0..<seconds {
        let heard = second < seconds / 2 ? addresses : Array(addresses.prefix(devices / 2))
        let batch = heard.enumerated().map { i, a in
          PresenceSighting(
            address: a, at: t0 + Double(second) + Double(i) / Double(devices), rssi: -60, measuredPower: -59)
        }
        let events = engine.observe(batch) + engine.tick(at: t0 + Double(second + 1))
        exits[second + 1, default: 0] += events.filter { $0.kind == .exit }.count
      }
    }
    return (took, exits.filter { $0.value > 0 })
  }

  @Test func everyQuietDeviceExitsAtItsTimeoutAtAnyScale() throws {
    let (_, smallExits) = try Self.run(devices: 1_000, seconds: 8)
    let (_, largeExits) = try Self.run(devices: 4_000, seconds: 8)
    // The quiet half was last heard during second 3 (at 3.5–4.0 s); exitTimeout 3: gone at the tick of 7 s.
    #expect(smallExits == [7: 500])
    #expect(largeExits == [7: 2_000])
  }
}
