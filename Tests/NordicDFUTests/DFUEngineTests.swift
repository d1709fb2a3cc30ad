import Testing

@testable import NordicDFU

/// The pure DFU engine against scripted target answers (docs/protocols/nordic-dfu.md §2.5): every action and the
/// bytes it carries are checked, so a change in order, chunking or resume logic fails here.
@Suite(.timeLimit(.minutes(2))) struct DFUEngineTests {
  let dat: [UInt8] = Array(0..<10)
  let bin: [UInt8] = Array(100..<120)  // 20 bytes

  func ok(_ op: UInt8, _ payload: ControlPointResponse.Payload = .none) -> DFUEvent {
    .response(ControlPointResponse(requestOpCode: op, result: .success(payload)))
  }
  func checksum(_ bytes: ArraySlice<UInt8>) -> DFUEvent {
    ok(0x03, .checksum(offset: UInt32(bytes.count), crc: CRC32.checksum(bytes)))
  }

  @Test func freshTransferFollowsTheSpecSequence() {
    var e = DFUEngine(
      images: [DFUTransferImage(name: "app", initPacket: dat, firmware: bin)],
      configuration: DFUEngineConfiguration(receiptInterval: 0))
    #expect(e.start() == .connect(image: 0))
    // link takes 10-byte writes → rounded down to 8 (multiple of 4)
    // the receipt interval is set once per connection (nrfutil `open()` → `__set_prn`), here 0
    #expect(e.handle(.connected(packetSize: 10)) == .send(.setReceiptInterval(0)))
    #expect(e.handle(ok(0x02)) == .send(.select(.command)))
    #expect(e.handle(ok(0x06, .select(maximumSize: 512, offset: 0, crc: 0))) == .send(.create(.command, size: 10)))
    #expect(e.handle(ok(0x01)) == .writePacket(Array(dat[0..<8])))
    #expect(e.handle(.packetWritten) == .writePacket(Array(dat[8..<10])))
    #expect(e.handle(.packetWritten) == .send(.calculateChecksum))
    #expect(e.handle(checksum(dat[...])) == .send(.execute))
    #expect(e.handle(ok(0x04)) == .send(.select(.data)))
    // objects of 16 bytes: [0,16) and [16,20)
    #expect(e.handle(ok(0x06, .select(maximumSize: 16, offset: 0, crc: 0))) == .send(.create(.data, size: 16)))
    #expect(e.handle(ok(0x01)) == .writePacket(Array(bin[0..<8])))
    #expect(e.handle(.packetWritten) == .writePacket(Array(bin[8..<16])))
    finishFromTheFirstObjectsLastPacket(&e)
    // Every firmware byte went over once; the init packet's 10 are not firmware.
    #expect(e.firmwareBytesDelivered == 20)
  }

  /// From the first data object's last packet written ([0,16) of `bin`): its checksum and Execute, then the
  /// last object [16,20) whole, to the end of the transfer.
  func finishFromTheFirstObjectsLastPacket(_ e: inout DFUEngine) {
    #expect(e.handle(.packetWritten) == .send(.calculateChecksum))
    #expect(e.handle(checksum(bin[0..<16])) == .send(.execute))
    #expect(e.handle(ok(0x04)) == .send(.create(.data, size: 4)))
    #expect(e.handle(ok(0x01)) == .writePacket(Array(bin[16..<20])))
    #expect(e.handle(.packetWritten) == .send(.calculateChecksum))
    #expect(e.handle(checksum(bin[0..<20])) == .send(.execute))
    #expect(e.handle(ok(0x04)) == .finished)
  }

  /// Drives the engine to the data Select of a single-image transfer.
  func engineAtDataSelect(prn: UInt16 = 0) -> DFUEngine {
    var e = DFUEngine(
      images: [DFUTransferImage(name: "app", initPacket: dat, firmware: bin)],
      configuration: DFUEngineConfiguration(receiptInterval: prn))
    _ = e.start()
    _ = e.handle(.connected(packetSize: 8))
    _ = e.handle(ok(0x02))
    // the target already holds the whole init packet: only Execute remains (§2.5 step 3)
    #expect(e.handle(ok(0x06, .select(maximumSize: 512, offset: 10, crc: CRC32.checksum(dat)))) == .send(.execute))
    #expect(e.handle(ok(0x04)) == .send(.select(.data)))
    return e
  }

  @Test func resumeInsideAnObjectStreamsTheRestWithoutCreate() {
    var e = engineAtDataSelect()
    // target has 12 bytes with the right CRC: finish object [0,16) from 12
    #expect(
      e.handle(ok(0x06, .select(maximumSize: 16, offset: 12, crc: CRC32.checksum(bin[0..<12]))))
        == .writePacket(Array(bin[12..<16])))
    // Only what the target lacked is delivered: 4 bytes to end this object, then the last object's 4.
    finishFromTheFirstObjectsLastPacket(&e)
    #expect(e.firmwareBytesDelivered == 8)
  }

  @Test func resumeAtAnObjectBoundaryReexecutesAndAccepts0x08() {
    var e = engineAtDataSelect()
    #expect(
      e.handle(ok(0x06, .select(maximumSize: 16, offset: 16, crc: CRC32.checksum(bin[0..<16])))) == .send(.execute))
    // SDK 15–17: "operation not permitted" because that object was executed before the drop
    let notPermitted = DFUEvent.response(
      ControlPointResponse(requestOpCode: 0x04, result: .failure(.operationNotPermitted, extended: nil)))
    #expect(e.handle(notPermitted) == .send(.create(.data, size: 4)))
  }

  @Test func resumeWithAWrongCRCRecreatesTheObject() {
    var e = engineAtDataSelect()
    #expect(e.handle(ok(0x06, .select(maximumSize: 16, offset: 12, crc: 0xBAD))) == .send(.create(.data, size: 16)))
    #expect(e.handle(ok(0x01)) == .writePacket(Array(bin[0..<8])))
    // The target's partial object did not check out: it is sent whole, from its start.
    #expect(e.handle(.packetWritten) == .writePacket(Array(bin[8..<16])))
    #expect(e.firmwareBytesDelivered == 20)
  }

  @Test func checksumMismatchRetriesThreeTimesThenFails() {
    var e = engineAtDataSelect()
    _ = e.handle(ok(0x06, .select(maximumSize: 16, offset: 0, crc: 0)))
    for attempt in 1...3 {
      _ = e.handle(ok(0x01))
      _ = e.handle(.packetWritten)
      #expect(e.handle(.packetWritten) == .send(.calculateChecksum))
      let bad = e.handle(ok(0x03, .checksum(offset: 16, crc: 0x1234)))
      if attempt < 3 {
        #expect(bad == .send(.create(.data, size: 16)))
      } else {
        #expect(bad == .failed(.checksumMismatch(image: "app", offset: 16)))
      }
    }
  }

  @Test func receiptsAreAwaitedEveryNPacketsAndChecked() {
    var e = engineAtDataSelect(prn: 1)
    _ = e.handle(ok(0x06, .select(maximumSize: 16, offset: 0, crc: 0)))
    #expect(e.handle(ok(0x01)) == .writePacket(Array(bin[0..<8])))
    #expect(e.handle(.packetWritten) == .awaitReceipt)
    #expect(e.handle(checksum(bin[0..<8])) == .writePacket(Array(bin[8..<16])))
    #expect(e.handle(.packetWritten) == .awaitReceipt)
    // a receipt that reports fewer bytes means a lost packet → recreate the object
    #expect(e.handle(checksum(bin[0..<8])) == .send(.create(.data, size: 16)))
  }

  @Test func rejectedInitPacketFailsWithTheExtendedError() {
    var e = DFUEngine(images: [DFUTransferImage(name: "app", initPacket: dat, firmware: bin)])
    _ = e.start()
    _ = e.handle(.connected(packetSize: 244))
    _ = e.handle(ok(0x02))
    _ = e.handle(ok(0x06, .select(maximumSize: 512, offset: 10, crc: CRC32.checksum(dat))))
    let hw = DFUEvent.response(
      ControlPointResponse(requestOpCode: 0x04, result: .failure(.extendedError, extended: .hardwareVersionFailure)))
    #expect(e.handle(hw) == .failed(.rejected(image: "app", request: 0x04, .extendedError, .hardwareVersionFailure)))
  }

  @Test func dropsReconnectUntilTheBudgetWithoutProgressIsSpent() {
    var e = DFUEngine(
      images: [DFUTransferImage(name: "app", initPacket: dat, firmware: bin)],
      configuration: DFUEngineConfiguration(maximumReconnectsWithoutProgress: 2))
    _ = e.start()
    #expect(e.handle(.disconnected) == .connect(image: 0))
    #expect(e.handle(.disconnected) == .connect(image: 0))
    #expect(e.handle(.disconnected) == .failed(.linkLost(image: "app", reconnects: 3)))
  }

  @Test func initPacketLargerThanTheTargetsMaximumFails() {
    var e = DFUEngine(images: [DFUTransferImage(name: "app", initPacket: dat, firmware: bin)])
    _ = e.start()
    _ = e.handle(.connected(packetSize: 20))
    _ = e.handle(ok(0x02))
    #expect(
      e.handle(ok(0x06, .select(maximumSize: 8, offset: 0, crc: 0)))
        == .failed(.initPacketTooLarge(image: "app", size: 10, maximum: 8)))
  }

  @Test func secondImageGoesInANewConnection() {
    let images = [
      DFUTransferImage(name: "sd_bl", initPacket: dat, firmware: [1, 2, 3, 4]),
      DFUTransferImage(name: "app", initPacket: dat, firmware: bin),
    ]
    var e = DFUEngine(images: images, configuration: DFUEngineConfiguration(receiptInterval: 0))
    _ = e.start()
    _ = e.handle(.connected(packetSize: 8))
    _ = e.handle(ok(0x02))
    _ = e.handle(ok(0x06, .select(maximumSize: 512, offset: 10, crc: CRC32.checksum(dat))))
    _ = e.handle(ok(0x04))
    #expect(e.handle(ok(0x06, .select(maximumSize: 16, offset: 0, crc: 0))) == .send(.create(.data, size: 4)))
    _ = e.handle(ok(0x01))
    _ = e.handle(.packetWritten)
    _ = e.handle(checksum([1, 2, 3, 4][...]))
    #expect(e.handle(ok(0x04)) == .connect(image: 1))
  }
}

extension DFUEngineTests {
  @Test func receiptAtTheObjectEndReplacesTheChecksumRequest() {
    var e = engineAtDataSelect(prn: 2)
    _ = e.handle(ok(0x06, .select(maximumSize: 16, offset: 0, crc: 0)))
    _ = e.handle(ok(0x01))
    #expect(e.handle(.packetWritten) == .writePacket(Array(bin[8..<16])))
    #expect(e.handle(.packetWritten) == .awaitReceipt)
    // receipt 60 03 01 | offset 16 | crc of bin[0..<16] → straight to Execute
    #expect(e.handle(checksum(bin[0..<16])) == .send(.execute))
  }
}

extension DFUEngineTests {
  @Test func systemPartRefusedAsNotNewerIsSkippedButALastImageIsNot() {
    let tooLow = DFUEvent.response(
      ControlPointResponse(requestOpCode: 0x04, result: .failure(.extendedError, extended: .firmwareVersionFailure)))
    let images = [
      DFUTransferImage(name: "softdevice_bootloader", initPacket: dat, firmware: [1, 2, 3, 4]),
      DFUTransferImage(name: "app", initPacket: dat, firmware: bin),
    ]
    var e = DFUEngine(images: images)
    _ = e.start()
    _ = e.handle(.connected(packetSize: 8))
    _ = e.handle(ok(0x02))
    _ = e.handle(ok(0x06, .select(maximumSize: 512, offset: 10, crc: CRC32.checksum(dat))))
    // 60 04 0B 05 on image 0 → continue with image 1 on the same link: its receipt interval still
    // holds, so straight to Select command
    #expect(e.handle(tooLow) == .send(.select(.command)))
    #expect(e.imageIndex == 1 && e.skippedImages == [0])
    _ = e.handle(ok(0x06, .select(maximumSize: 512, offset: 10, crc: CRC32.checksum(dat))))
    #expect(
      e.handle(tooLow) == .failed(.rejected(image: "app", request: 0x04, .extendedError, .firmwareVersionFailure)))
  }
}

extension DFUEngineTests {
  /// Set PRN goes out once per connection with the configured interval, and receipts that arrive while
  /// the init packet streams are awaited too (nrfutil 6.1.7 `dfu_transport_serial.py` `__stream_data`;
  /// the target counts every object write, §4).
  @Test func receiptIntervalIsSetOnceAndCoversTheInitPacket() {
    var e = DFUEngine(
      images: [DFUTransferImage(name: "app", initPacket: dat, firmware: bin)],
      configuration: DFUEngineConfiguration(receiptInterval: 1))
    _ = e.start()
    #expect(e.handle(.connected(packetSize: 8)) == .send(.setReceiptInterval(1)))
    #expect(e.handle(ok(0x02)) == .send(.select(.command)))
    #expect(e.handle(ok(0x06, .select(maximumSize: 512, offset: 0, crc: 0))) == .send(.create(.command, size: 10)))
    #expect(e.handle(ok(0x01)) == .writePacket(Array(dat[0..<8])))
    #expect(e.handle(.packetWritten) == .awaitReceipt)
    #expect(e.handle(checksum(dat[0..<8])) == .writePacket(Array(dat[8..<10])))
    #expect(e.handle(.packetWritten) == .awaitReceipt)
    #expect(e.handle(checksum(dat[...])) == .send(.execute))
    // no second Set PRN: the data objects use the same interval
    #expect(e.handle(ok(0x04)) == .send(.select(.data)))
  }

  /// Progress: each image starts at 0 of its own size, and each ends at 100 % — also the last one.
  @Test func progressCountsEachImageFromZeroAndEndsAtItsFullSize() {
    let first: [UInt8] = Array(0..<32)
    let images = [
      DFUTransferImage(name: "sd_bl", initPacket: dat, firmware: first),
      DFUTransferImage(name: "app", initPacket: dat, firmware: bin),
    ]
    var e = DFUEngine(images: images, configuration: DFUEngineConfiguration(receiptInterval: 0))
    var reports: [(Int, Int, Int)] = []
    func run(_ firmware: [UInt8]) {
      _ = e.handle(.connected(packetSize: 16))
      reports.append(e.progress)
      _ = e.handle(ok(0x02))
      _ = e.handle(ok(0x06, .select(maximumSize: 512, offset: 10, crc: CRC32.checksum(dat))))
      _ = e.handle(ok(0x04))
      _ = e.handle(ok(0x06, .select(maximumSize: 16, offset: 0, crc: 0)))
      var start = 0
      while start < firmware.count {
        let end = min(start + 16, firmware.count)
        _ = e.handle(ok(0x01))
        _ = e.handle(.packetWritten)
        _ = e.handle(checksum(firmware[0..<end]))
        _ = e.handle(ok(0x04))
        reports.append(e.progress)
        start = end
      }
    }
    _ = e.start()
    run(first)
    run(bin)
    #expect(reports.map { $0.0 } == [0, 0, 0, 1, 1, 1])
    #expect(reports.map { $0.1 } == [0, 16, 32, 0, 16, 20])
    #expect(reports.map { $0.2 } == [32, 32, 32, 20, 20, 20])
    #expect(e.isFinished)
  }
}
