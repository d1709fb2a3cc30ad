import BeaconCore
import Testing

@testable import NordicDFU

/// Control-point request/response byte vectors (docs/protocols/nordic-dfu.md §2.3, §2.4, and the nrfutil wire trace of §5).
@Suite(.timeLimit(.minutes(2))) struct ControlPointCodecTests {
  @Test func requestsEncodeAsInTheNrfutilTrace() {
    // 09 01: Ping, id 1
    #expect(ControlPointRequest.ping(id: 1).bytes == [0x09, 0x01])
    // 02 00 00: Set PRN, n = 0 (u16 LE)
    #expect(ControlPointRequest.setReceiptInterval(0).bytes == [0x02, 0x00, 0x00])
    // 07: Get MTU
    #expect(ControlPointRequest.getMTU.bytes == [0x07])
    // 06 01: Select, type 1 (command)
    #expect(ControlPointRequest.select(.command).bytes == [0x06, 0x01])
    // 01 01 8b000000: Create, type 1 (command), size 139 (u32 LE)
    #expect(ControlPointRequest.create(.command, size: 139).bytes == [0x01, 0x01, 0x8B, 0x00, 0x00, 0x00])
    // 01 02 00100000: Create, type 2 (data), size 4096
    #expect(ControlPointRequest.create(.data, size: 4096).bytes == [0x01, 0x02, 0x00, 0x10, 0x00, 0x00])
    // 03: Calculate checksum; 04: Execute; 0C: Abort
    #expect(ControlPointRequest.calculateChecksum.bytes == [0x03])
    #expect(ControlPointRequest.execute.bytes == [0x04])
    #expect(ControlPointRequest.abort.bytes == [0x0C])
    // 02 0C 00: PRN 12
    #expect(ControlPointRequest.setReceiptInterval(12).bytes == [0x02, 0x0C, 0x00])
    // 08 AA BB: serial write of two data bytes
    #expect(ControlPointRequest.write([0xAA, 0xBB]).bytes == [0x08, 0xAA, 0xBB])
  }

  @Test func requestsRoundTripAndMalformedOnesAreTypedErrors() throws {
    let all: [ControlPointRequest] = [
      .protocolVersion, .create(.data, size: 0x0102_0304), .setReceiptInterval(0x1234), .calculateChecksum, .execute,
      .select(.data), .getMTU, .write([1, 2, 3]), .ping(id: 7), .hardwareVersion, .firmwareVersion(image: 1), .abort,
    ]
    for r in all { #expect(try ControlPointRequest(bytes: r.bytes) == r) }
    #expect(throws: ControlPointError.empty) { try ControlPointRequest(bytes: []) }
    #expect(throws: ControlPointError.unknownOpCode(0x42)) { try ControlPointRequest(bytes: [0x42]) }
    #expect(throws: ControlPointError.wrongLength(op: 0x01)) { try ControlPointRequest(bytes: [0x01, 0x02, 0x00]) }
    #expect(throws: ControlPointError.unknownObjectType(3)) { try ControlPointRequest(bytes: [0x06, 0x03]) }
  }

  @Test func selectResponseDecodes() throws {
    // 60 06 01 | max 00020000 = 512 | offset 8b000000 = 139 | crc 78563412 = 0x12345678
    let r = try ControlPointResponse(bytes: [
      0x60, 0x06, 0x01, 0x00, 0x02, 0x00, 0x00, 0x8B, 0x00, 0x00, 0x00, 0x78, 0x56, 0x34, 0x12,
    ])
    #expect(r.requestOpCode == 0x06)
    #expect(r.result == .success(.select(maximumSize: 512, offset: 139, crc: 0x1234_5678)))
  }

  @Test func checksumResponseAndReceiptDecode() throws {
    // 60 03 01 | offset 00100000 = 4096 | crc efbeadde = 0xDEADBEEF (a PRN receipt is the same bytes)
    let r = try ControlPointResponse(bytes: [0x60, 0x03, 0x01, 0x00, 0x10, 0x00, 0x00, 0xEF, 0xBE, 0xAD, 0xDE])
    #expect(r.result == .success(.checksum(offset: 4096, crc: 0xDEAD_BEEF)))
  }

  @Test func mtuAndPingResponsesDecode() throws {
    // 60 07 01 | 8300 = 131 (SDK 15.3 UART MTU)
    #expect(try ControlPointResponse(bytes: [0x60, 0x07, 0x01, 0x83, 0x00]).result == .success(.mtu(131)))
    // 60 09 01 | id 05
    #expect(try ControlPointResponse(bytes: [0x60, 0x09, 0x01, 0x05]).result == .success(.ping(5)))
  }

  @Test func errorResponsesDecodeWithExtendedCodes() throws {
    // 60 04 0B 0C: Execute → extended error, 0x0C = image hash does not match the init packet
    #expect(
      try ControlPointResponse(bytes: [0x60, 0x04, 0x0B, 0x0C]).result
        == .failure(.extendedError, extended: .verificationFailed))
    // 60 04 0B 06: hardware version mismatch
    #expect(
      try ControlPointResponse(bytes: [0x60, 0x04, 0x0B, 0x06]).result
        == .failure(.extendedError, extended: .hardwareVersionFailure))
    // 60 01 08: Create → operation not permitted
    #expect(
      try ControlPointResponse(bytes: [0x60, 0x01, 0x08]).result == .failure(.operationNotPermitted, extended: nil))
  }

  @Test func malformedResponsesAreTypedErrors() {
    #expect(throws: ControlPointError.notAResponse(0x61)) { try ControlPointResponse(bytes: [0x61, 0x06, 0x01]) }
    // select success with a short payload (8 of 12 bytes)
    #expect(throws: ControlPointError.wrongLength(op: 0x06)) {
      try ControlPointResponse(bytes: [0x60, 0x06, 0x01, 0, 2, 0, 0, 0, 0, 0, 0])
    }
    #expect(throws: ControlPointError.self) { try ControlPointResponse(bytes: [0x60]) }
  }

  @Test func responsesEncodeToTheSameBytes() throws {
    let vectors: [[UInt8]] = [
      [0x60, 0x06, 0x01, 0x00, 0x10, 0x00, 0x00, 0x80, 0x17, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04],
      [0x60, 0x03, 0x01, 0x10, 0x27, 0x00, 0x00, 0xAA, 0xBB, 0xCC, 0xDD],
      [0x60, 0x04, 0x0B, 0x07], [0x60, 0x02, 0x01], [0x60, 0x07, 0x01, 0x83, 0x00],
    ]
    for v in vectors { #expect(try ControlPointResponse(bytes: v).bytes == v) }
  }
}

/// Buttonless entry codec and bootloader address rules (docs/protocols/nordic-dfu.md §2.2).
@Suite(.timeLimit(.minutes(2))) struct ButtonlessAndLocatorTests {
  @Test func buttonlessRequestsAndResponses() throws {
    // 01: enter bootloader
    #expect(ButtonlessRequest.enterBootloader.bytes == [0x01])
    // 02 | len 07 | "DfuTarg"
    #expect(
      ButtonlessRequest.setAdvertisingName("DfuTarg").bytes == [0x02, 0x07, 0x44, 0x66, 0x75, 0x54, 0x61, 0x72, 0x67])
    #expect(try ButtonlessRequest(bytes: [0x02, 0x03, 0x41, 0x42, 0x43]) == .setAdvertisingName("ABC"))
    #expect(throws: ControlPointError.wrongLength(op: 0x02)) { try ButtonlessRequest(bytes: [0x02, 0x05, 0x41]) }
    // 20 | op 02 | status 01 success
    #expect(
      try ButtonlessResponse(bytes: [0x20, 0x02, 0x01]) == ButtonlessResponse(requestOpCode: 2, status: .success))
    // 20 | op 02 | status 02 op code not supported (SDK 13 has no name command)
    #expect(try ButtonlessResponse(bytes: [0x20, 0x02, 0x02]).status == .opCodeNotSupported)
    // names longer than 20 bytes are cut to 20
    #expect(ButtonlessRequest.setAdvertisingName(String(repeating: "x", count: 30)).bytes.count == 22)
  }

  /// Set Advertisement Name with the names `BootloaderName` gives, and every status of its answer (§2.2).
  @Test func setAdvertisementNameVectors() throws {
    let device = BluetoothAddress("DD:34:02:06:D1:01")!
    // 02 | len 11 (17) | "DfuDD340206D101-1"
    let first = BootloaderName.make(for: device, attempt: 1)
    #expect(first == "DfuDD340206D101-1")
    #expect(ButtonlessRequest.setAdvertisingName(first).bytes == [0x02, 0x11] + Array("DfuDD340206D101-1".utf8))
    // the longest: attempt 9999 → 20 bytes, the most the bootloader stores; 10000 wraps to 1
    let longest = BootloaderName.make(for: device, attempt: 9999)
    #expect(longest == "DfuDD340206D101-9999" && longest.utf8.count == BootloaderName.maximumLength)
    #expect(ButtonlessRequest.setAdvertisingName(longest).bytes == [0x02, 0x14] + Array(longest.utf8))
    #expect(BootloaderName.make(for: device, attempt: 10_000) == first)
    #expect(try ButtonlessRequest(bytes: [0x02, 0x14] + Array(longest.utf8)) == .setAdvertisingName(longest))
    // 21 bytes is not a name the bootloader can store
    #expect(throws: ControlPointError.wrongLength(op: 0x02)) {
      try ButtonlessRequest(bytes: [0x02, 0x15] + [UInt8](repeating: 0x41, count: 21))
    }
    // a name names its device only, from any attempt
    #expect(BootloaderName.isName("DfuDD340206D101-42", of: device))
    #expect(!BootloaderName.isName("DfuDD340206D102-1", of: device))
    #expect(!BootloaderName.isName("DfuDD340206D101-", of: device) && !BootloaderName.isName("DfuTarg", of: device))
    // ... and the device is read back from a name (a scan that hears a bootloader this tool named)
    #expect(BootloaderName.device(named: "DfuDD340206D101-42") == device)
    #expect(BootloaderName.device(named: "DfuDD340206d101-1") == nil, "make gives upper-case digits only")
    // only the attempt as make writes it (fuzz-bootloader-name found that isName took "-0")
    for other in [
      "DfuTarg", "DfuDD340206D101-", "DfuDD340206D101-12345", "DfuDD340206D1-1", "DfuDD340206D1Z1-1", "Df",
      "DfuDD340206D101-0", "DfuDD340206D101-007", "DfuDD340206D101-+7", "DfuDD340206D101--7", "DfuDD340206D101-٣",
    ] {
      #expect(BootloaderName.device(named: other) == nil, "\(other)")
    }
    // 20 | op 02 | status: 01 success, 02 op code not supported (SDK 13), 04 operation failed,
    // 05 invalid advertisement name, 06 busy, 07 not bonded
    let statuses: [(UInt8, ButtonlessResponse.Status)] = [
      (0x01, .success), (0x02, .opCodeNotSupported), (0x04, .operationFailed), (0x05, .invalidAdvertisingName),
      (0x06, .busy), (0x07, .notBonded),
    ]
    for (byte, status) in statuses {
      let response = try ButtonlessResponse(bytes: [0x20, 0x02, byte])
      #expect(response == ButtonlessResponse(requestOpCode: 0x02, status: status))
      #expect(response.bytes == [0x20, 0x02, byte])
    }
    // an unknown status is kept raw; a wrong length or response code is refused
    #expect(try ButtonlessResponse(bytes: [0x20, 0x02, 0x03]).status == nil)
    #expect(try ButtonlessResponse(bytes: [0x20, 0x02, 0x03]).rawStatus == 0x03)
    #expect(throws: ControlPointError.self) { try ButtonlessResponse(bytes: [0x20, 0x02]) }
    #expect(throws: ControlPointError.notAResponse(0x60)) { try ButtonlessResponse(bytes: [0x60, 0x02, 0x01]) }
  }

  @Test func aBootloaderAdvertisementListsFE59() {
    // 02 01 06 flags | 03 03 59 FE complete UUID16 FE59 | 08 09 "DfuTarg"
    #expect(
      BootloaderLocator.advertisesDFUService(
        [0x02, 0x01, 0x06, 0x03, 0x03, 0x59, 0xFE, 0x08, 0x09] + Array("DfuTarg".utf8)))
    // 05 02 0F 18 59 FE incomplete list with FE59 second
    #expect(BootloaderLocator.advertisesDFUService([0x05, 0x02, 0x0F, 0x18, 0x59, 0xFE]))
    // FE59 as service data (16 59 FE …) or in a name is not a UUID list
    #expect(!BootloaderLocator.advertisesDFUService([0x04, 0x16, 0x59, 0xFE, 0x00, 0x03, 0x09, 0x59, 0xFE]))
    // a truncated structure ends parsing without reading out of bounds
    #expect(!BootloaderLocator.advertisesDFUService([0x02, 0x01, 0x06, 0x05, 0x03, 0x59]))
  }

  @Test func bootloaderAddressIsLastOctetPlusOneWithoutCarry() {
    #expect(
      BootloaderLocator.candidateAddresses(for: BluetoothAddress("C0:11:22:33:44:55")!) == [
        BluetoothAddress("C0:11:22:33:44:56")!, BluetoothAddress("C0:11:22:33:44:55")!,
      ])
    // FF wraps to 00, the fifth octet does not change
    #expect(
      BootloaderLocator.candidateAddresses(for: BluetoothAddress("C0:11:22:33:44:FF")!)[0] == BluetoothAddress(
        "C0:11:22:33:44:00")!)
  }

  @Test func theBootloaderAtPlusOneIsTriedAsARandomAddressThenTheApplicationsOwn() {
    // an application served with a controller's public address: +1 as random, then its own (public)
    let served = BootloaderLocator.candidates(for: BluetoothAddress("00:AA:01:01:00:01")!, type: .public)
    #expect(
      served == [
        BootloaderLocator.Candidate(address: BluetoothAddress("00:AA:01:01:00:02")!, type: .random),
        BootloaderLocator.Candidate(address: BluetoothAddress("00:AA:01:01:00:01")!, type: .public),
      ])
    // a KBeacon with its random static address: both random
    let kbeacon = BootloaderLocator.candidates(for: BluetoothAddress("DD:34:02:06:D1:FF")!, type: .random)
    #expect(kbeacon.map(\.description) == ["DD:34:02:06:D1:00 (random)", "DD:34:02:06:D1:FF (random)"])
  }

  @Test func localNameIsFoundInAdvertisingData() {
    // 02 01 06 flags | 03 03 59 FE UUID16 FE59 | 08 09 "DfuTarg" complete name
    let data: [UInt8] = [
      0x02, 0x01, 0x06, 0x03, 0x03, 0x59, 0xFE, 0x08, 0x09, 0x44, 0x66, 0x75, 0x54, 0x61, 0x72, 0x67,
    ]
    #expect(BootloaderLocator.localName(in: data) == "DfuTarg")
    // a truncated structure ends parsing without reading out of bounds
    #expect(BootloaderLocator.localName(in: [0x02, 0x01, 0x06, 0x09, 0x09, 0x44]) == nil)
  }
}
