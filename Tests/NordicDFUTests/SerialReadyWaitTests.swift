import Synchronization
import Testing

@testable import NordicDFU

/// After the target resets (between images) the serial client keeps pinging for as long as nrfutil 6.1.7
/// waits (`dfu_transport_serial.py`: `DEFAULT_TIMEOUT = 30.0`, `open()` pings until it has passed).
@Suite("Serial bootloader ready wait", .timeLimit(.minutes(1))) struct SerialReadyWaitTests {
  /// A bootloader that is still busy after its reset: it ignores the first `silentPings` pings, then
  /// answers pings and Get MTU like the SDK 15.3 UART transport (docs/protocols/nordic-dfu.md §4).
  final class WakingBootloader: ByteChannel {
    let incoming: AsyncThrowingStream<[UInt8], any Error>
    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    private let state: Mutex<(pings: Int, decoder: SLIPDecoder)>
    private let silentPings: Int

    init(silentPings: Int) {
      (incoming, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
      state = Mutex((0, SLIPDecoder()))
      self.silentPings = silentPings
    }

    var pings: Int { state.withLock { $0.pings } }

    func write(_ bytes: [UInt8]) async throws {
      let frames = state.withLock { $0.decoder.feed(bytes) }
      for case .frame(let frame) in frames {
        switch try ControlPointRequest(bytes: frame) {
        case .ping(let id):
          let n = state.withLock { s in
            s.pings += 1
            return s.pings
          }
          if n > silentPings {
            continuation.yield(
              SLIP.encode(ControlPointResponse(requestOpCode: 0x09, result: .success(.ping(id))).bytes))
          }
        case .getMTU:
          continuation.yield(SLIP.encode(ControlPointResponse(requestOpCode: 0x07, result: .success(.mtu(131))).bytes))
        default: break
        }
      }
    }

    func close() async { continuation.finish() }
  }

  @Test func pingsGoOnUntilTheReadyTimeoutNotForAFixedNumberOfTries() async throws {
    // 40 unanswered pings of 10 ms each: far more than a handful of tries, far less than 30 s
    let target = WakingBootloader(silentPings: 40)
    let link = try await SerialDFULink.open(channel: target, responseTimeout: .milliseconds(10))
    #expect(target.pings == 41)
    #expect(link.packetSize == 64)  // (131 − 1) / 2 − 1
    await link.close()
  }

  @Test func aTargetThatNeverAnswersFailsAfterTheReadyTimeout() async throws {
    // The claim is about time: it gives up only once the ready timeout has passed (how many pings fit in it
    // depends on how busy the machine is; the test above counts them with a target that wakes up).
    let target = WakingBootloader(silentPings: .max)
    let clock = ContinuousClock()
    let start = clock.now
    // Not one byte came back: the port is silent (a first open reports that at once, SerialDFULinkFactory).
    let silent = await #expect(throws: SerialPortSilent.self) {
      _ = try await SerialDFULink.open(channel: target, responseTimeout: .milliseconds(10), readyTimeout: .seconds(2))
    }
    #expect(clock.now - start >= .seconds(2))
    #expect(target.pings >= 1 && silent?.pings == target.pings)
  }
}
