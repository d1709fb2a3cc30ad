import Testing

@testable import BeaconCore

/// HCI event packets (Core Vol 4 Part E §5.4.4, §7.7) as a raw HCI socket delivers them:
/// indicator 04 | event code | parameter length | parameters.
@Suite(.timeLimit(.minutes(1))) struct HCIEventTests {
  /// 11:22:33:44:55:66 on the wire (least significant octet first).
  static let wireAddress: [UInt8] = [0x66, 0x55, 0x44, 0x33, 0x22, 0x11]
  static let address = BluetoothAddress("11:22:33:44:55:66")!

  @Test func commandCompleteCarriesOpcodeAndStatus() throws {
    // 04 | 0E Command Complete | 04 | 01 one packet allowed | 0C 20 LE Set Scan Enable | 00 success
    guard case .commandComplete(let c) = try HCIEvent(packet: [0x04, 0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00]) else {
      Issue.record("not a Command Complete")
      return
    }
    #expect(c.allowedCommandPackets == 1 && c.opcode == .leSetScanEnable && c.status == .success)
    // … | 0B 20 LE Set Scan Parameters | 0C Command Disallowed
    let refused = try HCIEvent(packet: [0x04, 0x0E, 0x04, 0x01, 0x0B, 0x20, 0x0C])
    #expect(refused == .commandComplete(try CommandComplete([0x01, 0x0B, 0x20, 0x0C])))
    if case .commandComplete(let r) = refused { #expect(r.status == .commandDisallowed) }
  }

  @Test func commandStatus() throws {
    // 04 | 0F Command Status | 04 | 00 success (pending) | 01 allowed | 0D 20 LE Create Connection
    guard case .commandStatus(let s) = try HCIEvent(packet: [0x04, 0x0F, 0x04, 0x00, 0x01, 0x0D, 0x20]) else {
      Issue.record("not a Command Status")
      return
    }
    #expect(s.status == .success && s.opcode == HCIOpcode(ogf: 0x08, ocf: 0x000D))
  }

  @Test func advertisingReportEventWithTwoReports() throws {
    let packet: [UInt8] =
      [0x04, 0x3E, 0x19, 0x02, 0x02]  // LE Meta | 25 octets | subevent 02 Advertising Report | 2 reports
      + [0x00, 0x00] + Self.wireAddress + [0x03, 0x02, 0x01, 0x06, 0xC5]  // ADV_IND, public, 3 AD octets, −59 dBm
      + [0x04, 0x01] + Self.wireAddress + [0x00, 0x7F]  // SCAN_RSP, random, no data, RSSI n/a (127)
    guard case .leAdvertisingReports(let reports) = try HCIEvent(packet: packet) else {
      Issue.record("not an advertising report")
      return
    }
    #expect(reports.count == 2)
    let now = ContinuousClock.now
    let first = try #require(reports[0].advertisingReport(at: now))
    #expect(first.address == Self.address && first.addressType == .public && first.kind == .connectable)
    #expect(first.rssi == -59 && first.data == [0x02, 0x01, 0x06] && first.timestamp == now)
    let second = try #require(reports[1].advertisingReport(at: now))
    #expect(second.kind == .scanResponse && second.addressType == .random && second.rssi == 127 && second.data.isEmpty)
  }

  @Test func extendedAdvertisingReportWithALegacyPDU() throws {
    let packet: [UInt8] =
      [0x04, 0x3E, 0x1D, 0x0D, 0x01]  // LE Meta | 29 octets | subevent 0D Extended Advertising Report | 1 report
      + [0x10, 0x00, 0x01] + Self.wireAddress  // event type 0x0010 legacy ADV_NONCONN_IND, random address
      + [0x01, 0x00, 0xFF, 0x7F, 0xB0]  // primary 1M, no secondary, SID n/a, TX n/a, RSSI −80
      + [0x00, 0x00, 0x00] + [0, 0, 0, 0, 0, 0]  // no periodic interval, direct address type/address
      + [0x03, 0x02, 0x01, 0x04]  // 3 data octets: flags AD
    guard case .leExtendedAdvertisingReports(let reports) = try HCIEvent(packet: packet) else {
      Issue.record("not an extended advertising report")
      return
    }
    let report = try #require(reports.first?.advertisingReport(at: .now))
    #expect(report.kind == .nonConnectable && report.addressType == .random && report.rssi == -80)
    #expect(report.address == Self.address && report.data == [0x02, 0x01, 0x04])
  }

  @Test func extendedReportKindsAndFragments() {
    func report(_ type: UInt16, addressType: UInt8 = 0) -> LEExtendedAdvertisingReport {
      LEExtendedAdvertisingReport(eventType: type, addressType: addressType, address: Self.address, rssi: -40, data: [])
    }
    #expect(report(0x13).kind == .connectable)  // legacy ADV_IND
    #expect(report(0x15).kind == .directed)  // legacy ADV_DIRECT_IND
    #expect(report(0x12).kind == .scannable)  // legacy ADV_SCAN_IND
    #expect(report(0x1B).kind == .scanResponse)  // legacy SCAN_RSP to ADV_IND
    #expect(report(0x00).kind == .nonConnectable)  // extended, non-connectable
    #expect(report(0x01, addressType: 3).advertisingReport(at: .now)?.addressType == .random)  // random identity
    #expect(report(0x21).advertisingReport(at: .now) == nil)  // data status 1: more to come
    #expect(report(0x41).advertisingReport(at: .now) != nil)  // data status 2: truncated, passed on
    #expect(report(0x01, addressType: 0xFF).advertisingReport(at: .now) == nil)  // anonymous
  }

  @Test func connectionEvents() throws {
    // 04 3E 13 | 01 LE Connection Complete | 00 success | 40 00 handle 0x040 | 00 central | 00 public |
    // address | 18 00 interval 30 ms | 00 00 latency | C8 00 timeout 2 s | 00 clock accuracy
    let legacy: [UInt8] =
      [0x04, 0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x00, 0x00] + Self.wireAddress + [
        0x18, 0x00, 0x00, 0x00, 0xC8, 0x00, 0x00,
      ]
    guard case .leConnectionComplete(let c) = try HCIEvent(packet: legacy) else {
      Issue.record("not a connection complete")
      return
    }
    #expect(c.status == .success && c.handle == 0x40 && c.role == 0 && c.peer == Self.address)
    #expect(c.interval == 0x18 && c.latency == 0 && c.supervisionTimeout == 0xC8)
    // 0A Enhanced: the same plus local and peer RPAs (12 octets) after the peer address; status 3E failed.
    let enhanced: [UInt8] =
      [0x04, 0x3E, 0x1F, 0x0A, 0x3E, 0x41, 0x00, 0x00, 0x01] + Self.wireAddress + [UInt8](repeating: 0xEE, count: 12)
      + [0x28, 0x00, 0x00, 0x00, 0x64, 0x00, 0x00]
    guard case .leConnectionComplete(let e) = try HCIEvent(packet: enhanced) else {
      Issue.record("not an enhanced connection complete")
      return
    }
    #expect(
      e.status == .connectionFailedToEstablish && e.handle == 0x41 && e.peerAddressType == 1 && e.interval == 0x28)
    // 04 05 04 | 00 success | 40 00 handle | 13 remote user terminated
    #expect(
      try HCIEvent(packet: [0x04, 0x05, 0x04, 0x00, 0x40, 0x00, 0x13])
        == .disconnectionComplete(try DisconnectionComplete([0x00, 0x40, 0x00, 0x13])))
    if case .disconnectionComplete(let d) = try HCIEvent(packet: [0x04, 0x05, 0x04, 0x00, 0x40, 0x00, 0x13]) {
      #expect(d.handle == 0x40 && d.reason == .remoteUserTerminated)
    }
  }

  @Test func unknownEventsAreKeptRaw() throws {
    #expect(try HCIEvent(packet: [0x04, 0x13, 0x01, 0xAA]) == .other(code: 0x13, parameters: [0xAA]))
    #expect(try HCIEvent(packet: [0x04, 0x3E, 0x02, 0x03, 0xBB]) == .leOther(subevent: 0x03, parameters: [0xBB]))
  }

  @Test func malformedEventsThrowTypedErrors() {
    // Empty packet, and an ACL data packet (indicator 02) where an event was expected.
    #expect(throws: HCIDecodingError.truncated("HCI event packet", needed: 1, got: 0)) { try HCIEvent(packet: []) }
    #expect(throws: HCIDecodingError.unexpectedPacketType(0x02)) { try HCIEvent(packet: [0x02, 0x00]) }
    // Header says 5 parameter octets, 2 present.
    #expect(throws: HCIDecodingError.lengthMismatch("HCI event 0x0E", declared: 5, actual: 2)) {
      try HCIEvent(packet: [0x04, 0x0E, 0x05, 0x01, 0x0C])
    }
    // Advertising report announcing 2 reports but carrying 1.
    let oneOfTwo: [UInt8] = [0x3E, 0x02, 0x02, 0x00, 0x00] + Self.wireAddress + [0x00, 0xC5]
    #expect(throws: HCIDecodingError.self) {
      try HCIEvent(packet: [0x04, 0x3E, UInt8(oneOfTwo.count - 1)] + oneOfTwo.dropFirst())
    }
    // A report whose data length (0x1F) runs past the end of the event.
    let overlong: [UInt8] = [0x02, 0x01, 0x00, 0x00] + Self.wireAddress + [0x1F, 0x02, 0x01]
    #expect(throws: HCIDecodingError.self) { try HCIEvent(packet: [0x04, 0x3E, UInt8(overlong.count)] + overlong) }
    // Command Complete too short for its opcode; truncated connection complete.
    #expect(throws: HCIDecodingError.self) { try HCIEvent(packet: [0x04, 0x0E, 0x02, 0x01, 0x0C]) }
    #expect(throws: HCIDecodingError.self) { try HCIEvent(packet: [0x04, 0x3E, 0x03, 0x01, 0x00, 0x40]) }
  }

  @Test func errorsDescribeWhatWasMalformed() {
    #expect(
      HCIDecodingError.truncated("LE Advertising Report", needed: 12, got: 9).description
        == "malformed LE Advertising Report: needs at least 12 octets, got 9")
  }
}
