import Testing

@testable import BeaconCore

/// Malformed and unknown PDUs give typed errors (Core v5.4 Vol 3 Part F §3.4), never a trap.
@Suite(.timeLimit(.minutes(1))) struct ATTDecodingErrorTests {
  func reason(_ bytes: [UInt8]) -> ATTDecodingError.Reason? {
    do {
      _ = try ATTPDU(bytes)
      return nil
    } catch {
      return error.reason
    }
  }

  @Test func emptyAndUnknown() {
    #expect(reason([]) == .empty)
    // 0x14 is not an ATT opcode
    #expect(reason([0x14, 0x00]) == .unknownOpcode)
    // 0x0E Read Multiple Request is real but not decoded here: unknown, opcode kept for Request Not Supported
    do {
      _ = try ATTPDU([0x0E, 0x01, 0x00, 0x02, 0x00])
      Issue.record("decoded Read Multiple")
    } catch {
      #expect(error.reason == .unknownOpcode)
      #expect(error.opcode == 0x0E)
    }
  }

  @Test func wrongLengths() {
    // Error Response one octet short: 01 | 0A | 03 00 | (code missing)
    #expect(reason([0x01, 0x0A, 0x03, 0x00]) == .invalidLength)
    // Exchange MTU Request with a trailing octet: 02 | 17 00 | 00
    #expect(reason([0x02, 0x17, 0x00, 0x00]) == .invalidLength)
    // Read Request with a one-octet handle: 0A | 03
    #expect(reason([0x0A, 0x03]) == .invalidLength)
    // Write Response with a payload: 13 | 00
    #expect(reason([0x13, 0x00]) == .invalidLength)
    // Find By Type Value Response with 3 octets instead of 4: 07 | 01 00 05
    #expect(reason([0x07, 0x01, 0x00, 0x05]) == .invalidLength)
    // Read By Type Response, length 7 but 6 octets of data: 09 | 07 | 02 00 02 03 00 00
    #expect(reason([0x09, 0x07, 0x02, 0x00, 0x02, 0x03, 0x00, 0x00]) == .invalidLength)
    // Find Information Response format 1 with a 3-octet entry: 05 | 01 | 05 00 02
    #expect(reason([0x05, 0x01, 0x05, 0x00, 0x02]) == .invalidLength)
    // Read By Group Type Response with no entries: 11 | 06
    #expect(reason([0x11, 0x06]) == .invalidLength)
  }

  @Test func invalidFields() {
    // Find Information Response with format 03: 05 | 03 | 05 00 02 29
    #expect(reason([0x05, 0x03, 0x05, 0x00, 0x02, 0x29]) == .invalidField)
    // Execute Write with reserved flags 02: 18 | 02
    #expect(reason([0x18, 0x02]) == .invalidField)
    // Read By Type Request with a 4-octet type (ATT carries 2 or 16): 08 | 01 00 | FF FF | 00 28 00 00
    #expect(reason([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28, 0x00, 0x00]) == .invalidField)
    // Read By Type Response with length 1 (< handle size): 09 | 01 | 00
    #expect(reason([0x09, 0x01, 0x00]) == .invalidField)
  }

  @Test func typedDecodeRejectsAnotherOpcode() {
    #expect(throws: ATTDecodingError.self) { try ATTReadRequest([0x0C, 0x03, 0x00, 0x00, 0x00]) }
  }

  @Test func errorCodesHaveSpecNames() {
    #expect(ATTErrorCode.invalidOffset.description == "Invalid Offset (0x07)")
    #expect(ATTErrorCode(0x85).name == "Application Error")
    #expect(ATTErrorCode(0x85).isApplicationError)
    #expect(ATTErrorCode.cccdImproperlyConfigured.rawValue == 0xFD)
    #expect(ATTErrorCode(0x50).name == "Reserved")
    #expect(ATTErrorCode.attributeNotLong.meaning == "the attribute cannot be read using the Read Blob Request")
    // Every code 0x01…0x13 has its own name and meaning.
    let named = (0x01...0x13).map { ATTErrorCode(UInt8($0)) }
    #expect(Set(named.map(\.name)).count == 19)
    #expect(Set(named.map(\.meaning)).count == 19)
  }

  /// 10,000 random byte strings (seeded, so a failure reproduces) through the decoder: each either decodes
  /// and re-encodes to a PDU that decodes equal, or throws `ATTDecodingError`. Opcodes are drawn mostly from
  /// real ones so the field parsers, not just the opcode switch, see the garbage.
  @Test func randomBytesNeverTrap() {
    var rng = SeededGenerator(seed: 0xA77_5EED)
    let opcodes = ATTOpcode.allCases.map(\.rawValue)
    var decoded = 0
    for _ in 0..<10_000 {
      let count = Int(rng.next() % 40)
      var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
      if !bytes.isEmpty, rng.next() % 4 != 0 { bytes[0] = opcodes[Int(rng.next() % UInt64(opcodes.count))] }
      if let pdu = try? ATTPDU(bytes) {
        decoded += 1
        #expect((try? ATTPDU(pdu.bytes)) == pdu)
      }
    }
    #expect(decoded > 1000)
  }
}
