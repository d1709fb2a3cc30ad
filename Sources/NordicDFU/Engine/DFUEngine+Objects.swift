/// Object handling of the DFU engine: resume decisions on Select, streaming, checksums and execution
/// (docs/protocols/nordic-dfu.md §2.5 steps 2–15).
extension DFUEngine {
  /// §2.5 step 3: resume the init packet if the target holds a correct prefix, else create it afresh.
  mutating func commandSelected(max: UInt32, offset off: UInt32, crc reported: UInt32) -> DFUAction {
    let dat = image.initPacket
    guard max > 0 else { return fail(.badSelectResponse(image: image.name)) }
    guard dat.count <= Int(max) else {
      return fail(.initPacketTooLarge(image: image.name, size: dat.count, maximum: max))
    }
    attempts = 0
    objectStart = 0
    objectEnd = dat.count
    crcAtObjectStart = 0
    let o = Int(off)
    if o > 0, o <= dat.count, CRC32.checksum(dat[0..<o]) == reported {
      offset = o
      crc = reported
      if o == dat.count {
        phase = .commandExecute
        return .send(.execute)
      }
      phase = .commandStream
      return nextWrite()
    }
    return createObject()
  }

  /// §2.5 step 10: resume data at the reported offset if its CRC matches, else roll back to an object start.
  mutating func dataSelected(max: UInt32, offset off: UInt32, crc reported: UInt32) -> DFUAction {
    let bin = image.firmware
    guard max > 0, Int(off) <= bin.count else { return fail(.badSelectResponse(image: image.name)) }
    maximumObjectSize = Int(max)
    let o = Int(off)
    if o > bestReportedOffset {
      if bestReportedOffset >= 0 { reconnectsWithoutProgress = 0 }
      bestReportedOffset = o
    }
    attempts = 0
    let prefixMatches = CRC32.checksum(bin[0..<o]) == reported
    // What the target keeps of this image: all it reported when that prefix matches, else the objects before
    // the one rolled back to (the one holding the mismatch).
    let objectStart = o % maximumObjectSize == 0 ? o - maximumObjectSize : o - o % maximumObjectSize
    let kept = o == 0 ? 0 : prefixMatches ? o : objectStart
    if heldAtStart[imageIndex] == nil { heldAtStart[imageIndex] = kept }
    if o == 0 || !prefixMatches {
      setObject(start: kept)
      return createObject()
    }
    if o % maximumObjectSize == 0 || o == bin.count {
      // The object ending at `o` may not have been executed: execute it, tolerating 0x08.
      setObject(start: o - (o % maximumObjectSize == 0 ? maximumObjectSize : o % maximumObjectSize))
      offset = o
      crc = reported
      reexecuteTolerated = true
      phase = .dataExecute
      return .send(.execute)
    }
    // Inside an object: the target kept its size; stream the rest without a new Create.
    setObject(start: o - o % maximumObjectSize)
    offset = o
    crc = reported
    phase = .dataStream
    return nextWrite()
  }

  /// Sets the object range [start, start + max) clipped to the image and the CRC at its start.
  mutating func setObject(start: Int) {
    let bin = image.firmware
    objectStart = start
    confirmedBytes = start
    objectEnd = min(start + maximumObjectSize, bin.count)
    crcAtObjectStart = CRC32.checksum(bin[0..<start])
  }

  mutating func createObject() -> DFUAction {
    offset = objectStart
    crc = crcAtObjectStart
    reexecuteTolerated = false
    if inCommandPhase {
      phase = .commandCreate
      return .send(.create(.command, size: UInt32(objectEnd - objectStart)))
    }
    phase = .dataCreate
    return .send(.create(.data, size: UInt32(objectEnd - objectStart)))
  }

  mutating func objectCreated() -> DFUAction {
    packetsSinceReceipt = 0
    if phase == .dataCreate, configuration.dataObjectDelay > .zero {
      phase = .dataDelay
      return .delay(configuration.dataObjectDelay)
    }
    return startStreaming()
  }

  mutating func startStreaming() -> DFUAction {
    phase = phase == .commandCreate ? .commandStream : .dataStream
    return nextWrite()
  }

  mutating func nextWrite() -> DFUAction {
    guard offset < objectEnd else {
      phase = inCommandPhase ? .commandChecksum : .dataChecksum
      return .send(.calculateChecksum)
    }
    let length = min(packetSize, objectEnd - offset)
    pendingWrite = length
    return .writePacket(Array(stream[offset..<offset + length]))
  }

  mutating func packetWritten() -> DFUAction {
    guard phase == .commandStream || phase == .dataStream, pendingWrite > 0 else {
      return fail(.unexpectedResponse(expected: 0, got: 0))
    }
    crc = CRC32.update(crc, with: stream[offset..<offset + pendingWrite])
    offset += pendingWrite
    pendingWrite = 0
    if configuration.receiptInterval > 0 {
      // The target counts every object write since the last Create / Set PRN (§4), init packet included.
      packetsSinceReceipt += 1
      if packetsSinceReceipt == Int(configuration.receiptInterval) {
        packetsSinceReceipt = 0
        phase = phase == .commandStream ? .commandReceipt : .dataReceipt
        return .awaitReceipt
      }
    }
    return nextWrite()
  }

  /// §2.5 step 13: a receipt must report what we sent; otherwise bytes were lost or corrupted.
  mutating func receipt(offset off: UInt32, crc reported: UInt32) -> DFUAction {
    guard Int(off) == offset, reported == crc else { return retryObject(reportedOffset: off) }
    let command = phase == .commandReceipt
    if offset == objectEnd {
      // The receipt already confirms the whole object (offset and CRC): Calculate Checksum would only
      // repeat it, so execute at once — one round trip saved per object [I, our choice; the Nordic
      // libraries always ask].
      phase = command ? .commandExecute : .dataExecute
      return .send(.execute)
    }
    phase = command ? .commandStream : .dataStream
    return nextWrite()
  }

  /// §2.5 steps 6 and 14.
  mutating func checksummed(offset off: UInt32, crc reported: UInt32) -> DFUAction {
    guard Int(off) == offset, reported == crc else { return retryObject(reportedOffset: off) }
    phase = inCommandPhase ? .commandExecute : .dataExecute
    return .send(.execute)
  }

  mutating func retryObject(reportedOffset: UInt32) -> DFUAction {
    attempts += 1
    guard attempts < configuration.maximumObjectAttempts else {
      return fail(.checksumMismatch(image: image.name, offset: reportedOffset))
    }
    if inCommandPhase || phase == .commandChecksum { phase = .commandCreate } else { phase = .dataCreate }
    return createObject()
  }

  mutating func objectExecuted() -> DFUAction {
    reexecuteTolerated = false
    attempts = 0
    confirmedBytes = objectEnd
    guard objectEnd < image.firmware.count else {
      // Final execute: the image is in; the target resets. Next image in a new connection (§2.5).
      imageIndex += 1
      bestReportedOffset = -1
      reconnectsWithoutProgress = 0
      guard imageIndex < images.count else { return finish() }
      phase = .connecting
      return .connect(image: imageIndex)
    }
    setObject(start: objectEnd)
    return createObject()
  }
}
