import TestClocks
import Testing

@testable import BeaconCore

/// GATT client procedures against recorded request/response transcripts (Core v5.4 Vol 3 Part G §4): the
/// client must send exactly these bytes, in this order, and make sense of exactly these answers.
@Suite(.timeLimit(.minutes(1))) struct GATTClientTranscriptTests {
  /// A client on a scripted bearer. Without `timeout` no transaction ever times out (its timer runs on a
  /// clock the test never advances): a real 30 s timer fired in a loaded ThreadSanitizer pass while
  /// `requestsQueueOneAtATime` was still yielding, which ended the link and left the queued reads unsent.
  func client(_ script: [ScriptedBearer.Exchange], timeout: Duration? = nil) -> (GATTClient, ScriptedBearer) {
    let bearer = ScriptedBearer(script)
    guard let timeout else {
      return (GATTClient(bearer: bearer, transactionTimeout: .seconds(30), clock: ManualClock()), bearer)
    }
    return (GATTClient(bearer: bearer, transactionTimeout: timeout), bearer)
  }

  @Test func mtuExchangeTakesTheSmallerMTU() async throws {
    let (client, bearer) = client([
      // → 02 F7 00: Exchange MTU Request, Client Rx MTU 247
      // ← 03 9E 00: Exchange MTU Response, Server Rx MTU 158
      .init(request: [0x02, 0xF7, 0x00], answers: [[0x03, 0x9E, 0x00]])
    ])
    #expect(try await client.exchangeMTU() == 158)
    #expect(try await client.exchangeMTU() == 158)  // once per link: no second request
    #expect(await client.roundTrips == 1)
    #expect(bearer.mismatches.isEmpty)
  }

  @Test func mtuExchangeNotSupportedKeepsTheDefault() async throws {
    let (client, bearer) = client([
      // → 02 F700 ← 01 02 0000 06: Error Response to Exchange MTU, Request Not Supported
      .init(request: [0x02, 0xF7, 0x00], answers: [[0x01, 0x02, 0x00, 0x00, 0x06]])
    ])
    #expect(try await client.exchangeMTU() == 23)
    #expect(try await client.exchangeMTU() == 23)
    #expect(bearer.mismatches.isEmpty)
  }

  @Test func strayResponsesAreIgnored() async throws {
    let (client, bearer) = client([
      // → 0A 0300 ← 03 1700 (an Exchange MTU Response nobody asked for: another ATT client's),
      //   ← 01 04 0100 0A (an Error Response to a Find Information we never sent), ← 0B 4B42 (ours)
      .init(
        request: [0x0A, 0x03, 0x00],
        answers: [[0x03, 0x17, 0x00], [0x01, 0x04, 0x01, 0x00, 0x0A], [0x0B, 0x4B, 0x42]])
    ])
    #expect(try await client.read(3) == [0x4B, 0x42])
    #expect(await client.strayResponses == 2)
    #expect(bearer.mismatches.isEmpty)
  }

  @Test func discoversAKBeaconLikeDatabase() async throws {
    let (client, bearer) = client([
      // → 10 0100 FFFF 0028: Read By Group Type 0x2800 from 1
      // ← 11 06 | 0100 0500 0018 (GAP 1…5) | 0600 0B00 A0FE (FEA0 6…11)
      .init(
        request: [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28],
        answers: [[0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x00, 0x18, 0x06, 0x00, 0x0B, 0x00, 0xA0, 0xFE]]),
      // → 10 0C00 FFFF 0028: continue after 0x000B
      // ← 01 10 0C00 0A: Error Response, Read By Group Type, handle 0x000C, Attribute Not Found
      .init(request: [0x10, 0x0C, 0x00, 0xFF, 0xFF, 0x00, 0x28], answers: [[0x01, 0x10, 0x0C, 0x00, 0x0A]]),
      // → 10 0100 FFFF 0128: Read By Group Type 0x2801 (secondary services) from 1
      // ← 01 10 0100 0A: Attribute Not Found, none
      .init(request: [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x01, 0x28], answers: [[0x01, 0x10, 0x01, 0x00, 0x0A]]),
      // → 08 0100 0500 0328: Read By Type 0x2803 in GAP
      // ← 09 07 | 0200: 02 0300 002A (Device Name, read, value 3) | 0400: 02 0500 012A (Appearance, value 5);
      //   value 5 is the service's end: no room for another declaration, so no further request
      .init(
        request: [0x08, 0x01, 0x00, 0x05, 0x00, 0x03, 0x28],
        answers: [[0x09, 0x07, 0x02, 0x00, 0x02, 0x03, 0x00, 0x00, 0x2A, 0x04, 0x00, 0x02, 0x05, 0x00, 0x01, 0x2A]]),
      // → 08 0600 0B00 0328: Read By Type 0x2803 in FEA0
      // ← 09 07 | 0700: 0C 0800 A1FE (FEA1 write+wwr, value 8) | 0900: 10 0A00 A2FE (FEA2 notify, value 10)
      .init(
        request: [0x08, 0x06, 0x00, 0x0B, 0x00, 0x03, 0x28],
        answers: [[0x09, 0x07, 0x07, 0x00, 0x0C, 0x08, 0x00, 0xA1, 0xFE, 0x09, 0x00, 0x10, 0x0A, 0x00, 0xA2, 0xFE]]),
      // FEA2's value (10) + 2 > 11: no room for another declaration, so no terminating request.
      // Includes: each service's first characteristic declaration follows its service declaration (2 = 1 + 1,
      // 7 = 6 + 1), so neither has an include (Part G §3.1) and no Read By Type 0x2802 is sent.
      // Descriptors: Device Name 3…3 and Appearance 5…5 and FEA1 8…8 have empty ranges (no request).
      // → 04 0B00 0B00: Find Information for FEA2 (value 10, end 11)
      // ← 05 01 0B00 0229: format 16-bit, handle 11 = CCCD 0x2902
      .init(request: [0x04, 0x0B, 0x00, 0x0B, 0x00], answers: [[0x05, 0x01, 0x0B, 0x00, 0x02, 0x29]]),
    ])
    let db = try await client.discover()
    #expect(bearer.mismatches.isEmpty, "\(bearer.mismatches)")
    #expect(bearer.remaining == 0)
    #expect(db.services.map(\.uuid) == [BluetoothUUID(0x1800), BluetoothUUID(0xFEA0)])
    let notify = try #require(db.characteristic(BluetoothUUID(0xFEA2)))
    #expect(notify.properties == [.notify])
    #expect(notify.valueHandle == 10 && notify.endHandle == 11 && notify.cccdHandle == 11)
    let write = try #require(db.characteristic(BluetoothUUID(0xFEA1)))
    #expect(write.properties == [.write, .writeWithoutResponse])
    #expect(write.endHandle == 8)
    #expect(db.characteristic(BluetoothUUID(0x2A01))?.valueHandle == 5)
    #expect(db.services.allSatisfy { $0.isPrimary && $0.includes.isEmpty })
    #expect(await client.roundTrips == 6)
  }

  @Test func longReadUsesReadBlobUntilAShortPart() async throws {
    let value = (0..<30).map { UInt8($0) }
    let (client, bearer) = client([
      // → 0A 0300: Read Request handle 3 ← 0B + 22 octets (full at MTU 23: continue)
      .init(request: [0x0A, 0x03, 0x00], answers: [[0x0B] + value[0..<22]]),
      // → 0C 0300 1600: Read Blob handle 3 offset 22 ← 0D + 8 octets (short: done)
      .init(request: [0x0C, 0x03, 0x00, 0x16, 0x00], answers: [[0x0D] + value[22...]]),
    ])
    #expect(try await client.read(3) == value)
    #expect(bearer.mismatches.isEmpty, "\(bearer.mismatches)")
  }

  @Test func attributeNotLongEndsALongRead() async throws {
    let value = [UInt8](repeating: 0x41, count: 22)
    let (client, _) = client([
      .init(request: [0x0A, 0x03, 0x00], answers: [[0x0B] + value]),
      // ← 01 0C 0300 0B: Error Response to Read Blob, handle 3, Attribute Not Long
      .init(request: [0x0C, 0x03, 0x00, 0x16, 0x00], answers: [[0x01, 0x0C, 0x03, 0x00, 0x0B]]),
    ])
    #expect(try await client.read(3) == value)
  }

  @Test func longWriteIsPreparedThenExecuted() async throws {
    let value = (0..<40).map { UInt8($0) }
    let (client, bearer) = client([
      // → 16 0800 0000 + 18 octets (ATT_MTU − 5) ← 17 echo
      .init(
        request: [0x16, 0x08, 0x00, 0x00, 0x00] + value[0..<18],
        answers: [[0x17, 0x08, 0x00, 0x00, 0x00] + value[0..<18]]),
      // → 16 0800 1200 + 18 octets at offset 18 ← echo
      .init(
        request: [0x16, 0x08, 0x00, 0x12, 0x00] + value[18..<36],
        answers: [[0x17, 0x08, 0x00, 0x12, 0x00] + value[18..<36]]),
      // → 16 0800 2400 + 4 octets at offset 36 ← echo
      .init(
        request: [0x16, 0x08, 0x00, 0x24, 0x00] + value[36...],
        answers: [[0x17, 0x08, 0x00, 0x24, 0x00] + value[36...]]),
      // → 18 01: Execute Write, write ← 19
      .init(request: [0x18, 0x01], answers: [[0x19]]),
    ])
    try await client.write(value, to: 8)
    #expect(bearer.mismatches.isEmpty, "\(bearer.mismatches)")
    #expect(await client.roundTrips == 4)
  }

  @Test func aWrongEchoCancelsTheQueue() async throws {
    let value = (0..<20).map { UInt8($0) }
    let (client, bearer) = client([
      // ← the echo has its first octet changed (0x00 → 0xFF)
      .init(
        request: [0x16, 0x08, 0x00, 0x00, 0x00] + value[0..<18],
        answers: [[0x17, 0x08, 0x00, 0x00, 0x00, 0xFF] + value[1..<18]]),
      // → 18 00: Execute Write, cancel ← 19
      .init(request: [0x18, 0x00], answers: [[0x19]]),
    ])
    await #expect(throws: GATTError.reliableWriteMismatch(handle: 8, offset: 0)) {
      try await client.writeLong(value, to: 8)
    }
    #expect(bearer.mismatches.isEmpty, "\(bearer.mismatches)")
  }

  @Test func errorResponseBecomesATypedError() async throws {
    let (client, _) = client([
      // → 12 0300 01 ← 01 12 0300 03: Write Not Permitted on handle 3
      .init(request: [0x12, 0x03, 0x00, 0x01], answers: [[0x01, 0x12, 0x03, 0x00, 0x03]])
    ])
    do {
      try await client.write([0x01], to: 3)
      Issue.record("write succeeded")
    } catch let error as ATTRequestError {
      #expect(error == ATTRequestError(code: .writeNotPermitted, request: 0x12, handle: 3))
      #expect(error.description == "Write Request on handle 0x0003 failed: Write Not Permitted (0x03)")
    }
  }

  @Test func indicationIsConfirmedAndNotificationsKeepOrder() async throws {
    let (client, bearer) = client([
      // → 12 0B00 0100: CCCD of value 10: notifications on ← 13, then the peer notifies twice and indicates
      .init(
        request: [0x12, 0x0B, 0x00, 0x01, 0x00],
        answers: [[0x13], [0x1B, 0x0A, 0x00, 0x01], [0x1B, 0x0A, 0x00, 0x02], [0x1D, 0x0A, 0x00, 0x03]]),
      // → 1E: the client's confirmation of the indication
      .init(request: [0x1E], answers: []),
    ])
    let c = GATTCharacteristic(
      uuid: BluetoothUUID(0xFEA2), properties: [.notify], declarationHandle: 9, valueHandle: 10, endHandle: 11,
      descriptors: [GATTDescriptor(uuid: GATTAttributeType.clientCharacteristicConfiguration, handle: 11)])
    let stream = try await client.subscribe(to: c)
    var got: [[UInt8]] = []
    for await value in stream {
      got.append(value)
      if got.count == 3 { break }
    }
    #expect(got == [[1], [2], [3]])
    await bearer.signal.wait { bearer.remaining == 0 }
    #expect(bearer.sent.last == [0x1E])
  }

  @Test func transactionTimeoutClosesTheBearer() async throws {
    // → 0A 0300 and no answer, ever.
    let (client, bearer) = client([.init(request: [0x0A, 0x03, 0x00], answers: [])], timeout: .milliseconds(50))
    await #expect(throws: GATTError.transactionTimeout(request: .readRequest, after: .milliseconds(50))) {
      try await client.read(3)
    }
    #expect(bearer.isClosed)
    // Later requests fail at once with the same error.
    await #expect(throws: GATTError.self) { try await client.read(3) }
  }

  @Test func characteristicDiscoveryContinuesWhileTheServiceHasRoom() async throws {
    let service = GATTService(uuid: BluetoothUUID(0x180A), startHandle: 1, endHandle: 8)
    let (client, bearer) = client([
      // → 08 0100 0800 0328 ← 09 07 | 0200: 02 0300 292A (Manufacturer Name, read, value 3)
      .init(
        request: [0x08, 0x01, 0x00, 0x08, 0x00, 0x03, 0x28],
        answers: [[0x09, 0x07, 0x02, 0x00, 0x02, 0x03, 0x00, 0x29, 0x2A]]),
      // value 3 + 2 ≤ 8: another declaration could follow → 08 0300 0800 0328 ← 01 08 0300 0A Attribute Not Found
      .init(request: [0x08, 0x03, 0x00, 0x08, 0x00, 0x03, 0x28], answers: [[0x01, 0x08, 0x03, 0x00, 0x0A]]),
    ])
    let found = try await client.discoverCharacteristics(of: service)
    #expect(
      found == [
        GATTCharacteristic(
          uuid: BluetoothUUID(0x2A29), properties: [.read], declarationHandle: 2, valueHandle: 3, endHandle: 8)
      ])
    #expect(bearer.mismatches.isEmpty, "\(bearer.mismatches)")
  }

  @Test func requestsQueueOneAtATime() async throws {
    // Three reads of handle 3 (→ 0A 0300 each); the peer answers only when the test injects a response.
    let read: ScriptedBearer.Exchange = .init(request: [0x0A, 0x03, 0x00], answers: [])
    let (client, bearer) = client([read, read, read])
    let tasks = (0..<3).map { _ in Task { try await client.read(3) } }
    for answered in 1...3 {
      await bearer.signal.wait { bearer.sent.count >= answered }
      // Room for a second request to go out if the client did not queue them: a few turns of the other tasks
      // (200 here once held the test past its minute in a loaded ThreadSanitizer pass, each yield queued behind
      // every other test's work).
      for _ in 0..<20 { await Task.yield() }
      // Only one request is on the air until its response arrives.
      #expect(bearer.sent.count == answered)
      bearer.inject([0x0B, UInt8(answered)])  // ← 0B nn: Read Response
    }
    var values: [[UInt8]] = []
    for task in tasks { values.append(try await task.value) }
    #expect(values.sorted { $0[0] < $1[0] } == [[1], [2], [3]])
    #expect(bearer.mismatches.isEmpty)
  }

  @Test func linkLossFailsTheOutstandingRequest() async throws {
    let (client, bearer) = client([.init(request: [0x0A, 0x03, 0x00], answers: [])])
    let read = Task { try await client.read(3) }
    await bearer.signal.wait { !bearer.sent.isEmpty }
    bearer.drop()
    await #expect(throws: LinkError(.disconnected, peer: bearer.peer)) { _ = try await read.value }
    #expect(await client.terminationError is LinkError)
  }

  @Test func peerRequestsAreAnswered() async throws {
    let (client, bearer) = client([
      // ← the peer's own Exchange MTU Request (02 4000 = 64) → our response 03 F700
      .init(request: [0x03, 0xF7, 0x00], answers: []),
      // ← the peer's Read Request 0A 0100 → 01 0A 0000 06 Request Not Supported
      .init(request: [0x01, 0x0A, 0x00, 0x00, 0x06], answers: []),
    ])
    bearer.inject([0x02, 0x40, 0x00])
    bearer.inject([0x0A, 0x01, 0x00])
    await bearer.signal.wait { bearer.remaining == 0 }
    #expect(await client.mtu == 64)
    #expect(bearer.mismatches.isEmpty, "\(bearer.mismatches)")
  }
}
