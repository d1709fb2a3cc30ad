import BeaconCore
import Glibc
import Simulator

/// `provision-bench decode`: decodes a million mixed advertising reports (the demo fleet's advertising and
/// scan responses as the simulator emits them: iBeacon, Eddystone UID/URL/TLM, KSensor, System, 0x2080,
/// names) on one core, and prints reports per second next to the goal. The rate is given per second of
/// this thread's CPU time (what one core achieves, even on a busy machine) and per second of wall time.
enum DecodeBenchmark {
  static let goal = 2_000_000.0
  static let reportCount = 1_000_000

  static func run() {
    var schedule = AdvertisingSchedule(fleet: DemoFleet.fleet, active: true)
    var payloads: [[UInt8]] = []
    while payloads.count < 4096, let next = schedule.next() { payloads.append(next.data) }
    precondition(payloads.count == 4096, "the mask below needs a power-of-two payload count")
    // Warm up, then measure.
    var checksum = 0
    for p in payloads { checksum &+= DecodedAdvertisement(p).frames.count }
    let clock = ContinuousClock()
    let start = clock.now
    let cpuStart = threadCPUSeconds()
    for i in 0..<reportCount {
      let decoded = DecodedAdvertisement(payloads[i & (payloads.count - 1)])
      checksum &+= decoded.frames.count &+ decoded.elements.count
    }
    let cpuSeconds = threadCPUSeconds() - cpuStart
    let elapsed = clock.now - start
    let wallSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let rate = Double(reportCount) / cpuSeconds
    let frameKinds = Set(payloads.flatMap { DecodedAdvertisement($0).frames.map(\.kind.rawValue) }).sorted()
    print(
      "decoded \(reportCount) reports (\(payloads.count) distinct payloads; frames: \(frameKinds.joined(separator: ", ")))"
    )
    print(
      "  \(Int(rate)) reports/s on one core (per CPU second)  (goal: ≥ 2,000,000 reports/s)  [\(rate >= goal ? "meets goal" : "below goal")]"
    )
    print(
      "  \(Int(cpuSeconds * 1e9 / Double(reportCount))) ns CPU per report; wall clock \(Int(Double(reportCount) / wallSeconds)) reports/s  (checksum \(checksum))"
    )
  }
}

/// CPU time consumed by the calling thread, in seconds.
func threadCPUSeconds() -> Double {
  var t = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
  return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}
