import BeaconCore
import KBeacon
import Testing

@testable import Simulator

/// The simulated KBeacon's protocol engine as a pure state machine: FEA1 frames in, FEA2 frames out
/// (docs/protocols/kbeacon.md §4, §5, §6), checked against hand-decoded frames.
@Suite(.timeLimit(.minutes(3))) struct SimulatedKBeaconDeviceTests {
  static let address = BluetoothAddress("BC:57:29:01:02:03")!

  /// Authenticates a fresh device on a link of `mtu` and returns it.
  func authenticated(_ profile: KBeaconDeviceProfile = .pro(), mtu: Int) -> SimulatedKBeaconDevice {
    var device = SimulatedKBeaconDevice(address: Self.address, profile: profile)
    device.connected(mtu: mtu)
    // 13 01 | R1 11223344 | UTC 6553F100 (= 1700000000)
    let challenge = device.receive(hex("13 01 11223344 6553F100"), now: 1_700_000_000).notifications[0]
    let short = mtu <= 23
    // 13 0B | R2 | D1s (8) at MTU 23 — the full 22-byte challenge does not fit in 20 bytes; 13 01 | R2 | D1 otherwise
    #expect(Array(challenge.prefix(2)) == (short ? hex("13 0B") : hex("13 01")))
    let r2 = Array(challenge[2..<6])
    let d1 = Array(challenge[6...])
    let password = Array("0000000000000000".utf8)
    // D1 over R1 11223344 for BC:57:29:01:02:03 and the factory password — the spec vector of
    // AuthenticationTests (Python hashlib.md5 of 030201 2957BC A9B1 11223344 ‖ "0"×16; short = XOR of halves)
    #expect(d1 == (short ? hex("fb02a448b833884f") : hex("00f74bd302ffdfeefbf5ef9bbacc57a1")))
    let d2 =
      short
      ? AuthDigest.short(address: Self.address, random: r2, password: password)
      : AuthDigest.full(address: Self.address, random: r2, password: password)
    // 13 0C|02 + D2 → 13 02 F7: success, device MTU 247
    #expect(device.receive(hex(short ? "13 0C" : "13 02") + d2, now: 1_700_000_000).notifications == [hex("13 02 F7")])
    #expect(device.isAuthenticated)
    return device
  }

  @Test func multiFrameGetParaAtMTU23() throws {
    var device = authenticated(mtu: 23)
    let request = Array(#"{"msg":"getPara","type":1}"#.utf8)  // 26 bytes, budget 17
    // 20 0000 | first 17 bytes → 23 0011 0000 0004: "expect next from offset 17"
    #expect(device.receive(hex("20 0000") + request[0..<17], now: 0).notifications == [hex("23 0011 0000 0004")])
    // 22 0011 | last 9 bytes → 23 001A 0000 0005 (all 26 bytes received, report follows) + 30 0000 | first
    // 17 report bytes
    let out = device.receive(hex("22 0011") + request[17...], now: 0).notifications
    #expect(out.count == 2)
    #expect(out[0] == hex("23 001A 0000 0005"))
    #expect(Array(out[1].prefix(3)) == hex("30 0000") && out[1].count == 20)
    var report = Array(out[1].dropFirst(3))
    // ack each fragment with 33 | bytes held | 03E8 | 0000 until END (0x32)
    var last = out[1]
    while last[0] != 0x32 {
      let next = device.receive(ReportAck(dataType: .jsonReport, receivedLength: UInt16(report.count)).bytes, now: 0)
        .notifications
      #expect(next.count == 1)
      last = next[0]
      #expect(Int(last[1]) << 8 | Int(last[2]) == report.count)  // each fragment's offset = bytes so far
      report += last.dropFirst(3)
    }
    #expect(
      device.receive(ReportAck(dataType: .jsonReport, receivedLength: UInt16(report.count)).bytes, now: 0).notifications
        .isEmpty)
    let config = try ReadResponse.parse(report, generation: .pro)
    #expect(config.common[CommonKey.model] == "KBPro_SIM" && config.slots.isEmpty)
  }

  @Test func shortAnswerRidesOnTheAckAtMTU247() {
    var device = authenticated(mtu: 247)
    // {"msg":"getPara","type":2,"slot":4} (35 bytes) as one SINGLE frame → 23 0023 0000 0000 + {"advObj":[{"slot":4,"type":0}]}
    let out = device.receive(hex("23 0000") + Array(#"{"msg":"getPara","type":2,"slot":4}"#.utf8), now: 0).notifications
    #expect(out == [hex("23 0023 0000 0000") + Array(#"{"advObj":[{"slot":4,"type":0}]}"#.utf8)])
  }

  @Test func overlappingRequestIsAnsweredBusy() {
    var device = authenticated(mtu: 23)
    _ = device.receive(hex("20 0000") + Array(#"{"msg":"getPara","#.utf8), now: 0)  // START of request A
    // SINGLE of request B while A is half received → 23 0000 0000 010C (command busy)
    #expect(
      device.receive(hex("23 0000") + Array(#"{"msg":"ring"}"#.utf8), now: 0).notifications == [
        hex("23 0000 0000 010C")
      ])
  }

  /// A client used on real tags (HAR, docs/protocols/kbeacon.md §4.3) resends a request from offset seq while
  /// an ack without a JSON body has seq below the request length. Every ack to a whole request carries
  /// the request's length, so such a client sends its `ring` once.
  @Test func aClientThatResendsBelowTheAckSeqSendsARingOnce() throws {
    var device = authenticated(mtu: 247)
    let ring = Array(#"{"msg":"ring","ringTime":5000,"ringType":2,"ledOn":200,"ledOff":1800}"#.utf8)  // 69 bytes
    var writes = 0
    var offset = 0
    var acks: [[UInt8]] = []
    while writes < 100 {
      writes += 1
      // HAR: a message within the budget always goes as one SINGLE frame from 0 (23 0000 + JSON)
      acks += device.receive(hex("23 0000") + ring, now: 1_700_000_000).notifications
      let ack = try DeviceAck(bytes: try #require(acks.last))
      if Int(ack.seq) >= ring.count { break }
      offset = Int(ack.seq)
    }
    #expect(writes == 1, "resent from offset \(offset)")
    // 23 | seq 0045 (69 bytes received) | window 0000 | cause 0000 success
    #expect(acks.first == hex("23 0045 0000 0000"))
    #expect(device.commandLog == [.ring(milliseconds: 5000, type: 2, ledOn: 200, ledOff: 1800)])
  }

  /// A ring that arrives while one is in progress is acknowledged but not restarted; after its end a ring
  /// starts again, a v2 ringType 0 stops it (§6.7), and a new link starts silent (§14 item 6).
  @Test func aRingInProgressIsNotRestarted() {
    var device = authenticated(mtu: 247)
    let start: UInt32 = 1_700_000_000  // the clock auth set (offset 0)
    func ring(_ json: String, at now: UInt32) -> [[UInt8]] {
      device.receive(hex("23 0000") + Array(json.utf8), now: now).notifications
    }
    let threeSeconds = #"{"msg":"ring","ringTime":3000,"ringType":1}"#  // 43 bytes
    #expect(ring(threeSeconds, at: start) == [hex("23 002B 0000 0000")])
    #expect(device.isRinging(at: start + 2))
    // the same request resent, then a different ring, both within the 3 s: acked, nothing restarted
    #expect(ring(threeSeconds, at: start + 1) == [hex("23 002B 0000 0000")])
    _ = ring(#"{"msg":"ring","ringTime":9000,"ringType":2}"#, at: start + 2)
    #expect(device.commandLog == [.ring(milliseconds: 3000, type: 1, ledOn: nil, ledOff: nil)])
    #expect(!device.isRinging(at: start + 3))
    _ = ring(threeSeconds, at: start + 3)
    #expect(device.isRinging(at: start + 4))
    _ = ring(#"{"msg":"ring","ringTime":0,"ringType":0}"#, at: start + 4)
    #expect(!device.isRinging(at: start + 4))
    #expect(device.commandLog.count == 3)
    _ = ring(threeSeconds, at: start + 5)
    device.connected(mtu: 247)
    #expect(!device.isRinging(at: start + 5))
  }

  @Test func requestsBeforeAuthAndBadJSONAndUnknownMessages() {
    var fresh = SimulatedKBeaconDevice(address: Self.address, profile: .pro())
    fresh.connected(mtu: 247)
    // before auth: 23 0000 0000 0107 (our choice, §4.3 names none)
    #expect(fresh.receive(hex("23 0000") + Array("{}".utf8), now: 0).notifications == [hex("23 0000 0000 0107")])
    var device = authenticated(mtu: 247)
    // not JSON → 0x105 JSON parse failed; every ack to a whole request carries its length as seq
    #expect(device.receive(hex("23 0000 7B7B"), now: 0).notifications == [hex("23 0002 0000 0105")])
    // {"msg":"dance"} (15 bytes) → 0x119 unknown message
    #expect(
      device.receive(hex("23 0000") + Array(#"{"msg":"dance"}"#.utf8), now: 0).notifications == [
        hex("23 000F 0000 0119")
      ])
    // v1 read on v2 firmware (28 bytes) → 0x103 (as real KBeacon Pro firmware answers, §1)
    #expect(
      device.receive(hex("23 0000") + Array(#"{"msg":"getPara","stype":55}"#.utf8), now: 0).notifications == [
        hex("23 001C 0000 0103")
      ])
  }

  @Test func capabilityDifferencesAnswerTheSpecCauses() {
    var profile = KBeaconDeviceProfile.pro()
    profile.allowsNonConnectable = false
    var device = authenticated(profile, mtu: 247)
    func cfg(_ json: String) -> [[UInt8]] { device.receive(hex("23 0000") + Array(json.utf8), now: 0).notifications }
    // acks carry the request's length as seq (0x35 = 53 bytes here, and so on)
    // non-connectable slot on a device that must stay connectable → 0x104
    #expect(cfg(#"{"msg":"cfg","advObj":[{"slot":0,"type":5,"conn":0}]}"#) == [hex("23 0035 0000 0104")])
    // txPwr 8 above maxPwr 4 → 0x103
    #expect(cfg(#"{"msg":"cfg","advObj":[{"slot":0,"type":5,"txPwr":8}]}"#) == [hex("23 0036 0000 0103")])
    // advPrd 50 below 100 → 0x103
    #expect(cfg(#"{"msg":"cfg","advObj":[{"slot":0,"type":5,"advPrd":50}]}"#) == [hex("23 0038 0000 0103")])
    // PIR trigger not in trCap → 0x117; sensor 0x41 not fitted → 0x118
    #expect(cfg(#"{"msg":"cfg","trObj":[{"trIdx":0,"trType":13}]}"#) == [hex("23 002F 0000 0117")])
    #expect(cfg(#"{"msg":"cfg","srObj":[{"srType":65,"lgItvl":60}]}"#) == [hex("23 0031 0000 0118")])
    // trigger advertising on disabled slot 3 → 0x109; two triggers of one type → 0x10B
    #expect(cfg(#"{"msg":"cfg","trObj":[{"trIdx":0,"trType":4,"trAct":1,"slot":3}]}"#) == [hex("23 0041 0000 0109")])
    #expect(
      cfg(#"{"msg":"cfg","trObj":[{"trIdx":0,"trType":4,"trAct":2},{"trIdx":1,"trType":4,"trAct":2}]}"#) == [
        hex("23 0059 0000 010B")
      ])
    // a valid write changes only its keys
    #expect(cfg(#"{"msg":"cfg","advObj":[{"slot":0,"type":5,"txPwr":-8}],"newKey":1}"#) == [hex("23 0042 0000 0000")])
    #expect(device.configuration.slot(0)?[SlotKey.txPwr] == -8)
    #expect(device.configuration.slot(0)?[SlotKey.majorID] == 1)
    #expect(device.configuration.common.fields["newKey"] == .int(1))
  }

  @Test func passwordChangeTakesEffectOnTheNextLink() throws {
    var device = authenticated(mtu: 247)
    #expect(
      device.receive(hex("23 0000") + Array(#"{"msg":"cfg","pwd":"new-secret-1"}"#.utf8), now: 0).notifications == [
        hex("23 0022 0000 0000")
      ])
    #expect(device.configuration.common.fields["pwd"] == nil)  // never stored in the configuration
    device.connected(mtu: 247)
    var app = AppAuthenticator(address: Self.address, password: .factoryDefault, random: hex("01020304"), utc: nil)
    let challenge = device.receive(app.start(), now: 0).notifications[0]
    #expect(app.receive(challenge) == .fail(.wrongPassword))
    var good = AppAuthenticator(
      address: Self.address, password: try KBeaconPassword("new-secret-1"), random: hex("01020304"), utc: nil)
    device.connected(mtu: 247)
    guard case .send(let response) = good.receive(device.receive(good.start(), now: 0).notifications[0]) else {
      Issue.record("new password refused")
      return
    }
    #expect(device.receive(response, now: 0).notifications == [hex("13 02 F7")])
  }
}
