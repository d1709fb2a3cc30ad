import BeaconCore
import BlueZ
import Testing

@testable import Simulator

/// Link faults and limits of the simulated link (docs/protocols/simulator.md "The simulator": drop at a byte, stop
/// answering, disconnect on cue, links per adapter) as the client experiences them.
@Suite(.timeLimit(.minutes(3))) struct SimulatedLinkFaultTests {
  func server() -> GATTServer { GATTServer(services: GenericDeviceDatabase.kbeaconLike(name: "KBPro")) }

  @Test func silentDeviceTripsTheTransactionTimeout() async throws {
    let (client, _) = try await GATTFixtures.connect(
      server(), faults: LinkFaults(stopAnsweringAfterRequests: 1), timeout: .seconds(1))
    _ = try await client.exchangeMTU()
    await #expect(throws: GATTError.transactionTimeout(request: .readByGroupTypeRequest, after: .seconds(1))) {
      _ = try await client.discoverPrimaryServices()
    }
    // The bearer is closed: nothing more goes out.
    await #expect(throws: GATTError.self) { _ = try await client.read(1) }
    #expect(client.bearer is FileDescriptorBearer)
    await #expect(throws: LinkError.self) { try await client.bearer.send([0x0A, 0x01, 0x00]) }
  }

  @Test func linkDroppedMidDiscovery() async throws {
    // Exchange MTU (3 octets) + first Read By Group Type (7) pass; the second request crosses 12 octets.
    let (client, _) = try await GATTFixtures.connect(server(), faults: LinkFaults(dropAfterBytes: 12))
    _ = try await client.exchangeMTU()
    await #expect(throws: LinkError.self) { _ = try await client.discover() }
    let error = try #require(await client.terminationError as? LinkError)
    #expect(error.code == .disconnected)
  }

  @Test func linkDroppedAtAChosenPDU() async throws {
    let long = (0..<100).map { UInt8($0) }
    let server = GATTServer(services: [
      SimulatedService(
        uuid: BluetoothUUID(0xFF00),
        characteristics: [SimulatedCharacteristic(uuid: BluetoothUUID(0xFF01), properties: [.read], value: long)])
    ])
    let faults = LinkFaults(disconnectWhen: { pdu in
      if case .readBlobRequest(let r) = pdu { return r.offset >= 44 }
      return false
    })
    let (client, _) = try await GATTFixtures.connect(server, faults: faults)
    await #expect(throws: LinkError.self) {
      _ = try await client.read(try #require(server.valueHandle(of: BluetoothUUID(0xFF01))))
    }
    let trips = await client.roundTrips
    #expect(trips == 3, "round trips: \(trips)")  // Read, Blob at 22, Blob at 44 (dropped)
  }

  @Test func deviceDisconnectsOnCue() async throws {
    let (client, link) = try await GATTFixtures.connect(server())
    let db = try await client.discover()
    let stream = try await client.subscribe(to: try #require(db.characteristic(BluetoothUUID(0xFEA2))))
    await link.disconnect()
    for await _ in stream {}  // finishes when the link goes
    #expect((await client.terminationError as? LinkError)?.code == .disconnected)
  }

  @Test func nothingQueuedWhenTheDeviceDropsTheLinkReachesTheDevice() async throws {
    // The first Write Command's handler drops the link (a reboot; a DFU target losing the link at a byte)
    // only once the reader has queued the client's later commands: none of them may reach the device. (The
    // bug behind a flaky DFU resume test: queued packets from a dropped link went on into the DFU target.)
    let (marked, mark) = AsyncStream.makeStream(of: Void.self)
    let lastValue: [UInt8] = [0xFF]
    let faults = LinkFaults(disconnectWhen: { pdu in
      // never disconnects: tells the handler the reader has read (and so queued) everything before this
      if case .writeCommand(let c) = pdu, c.value == lastValue { mark.yield() }
      return false
    })
    let received = Recorder<[UInt8]>()
    let server = GATTServer(services: [
      SimulatedService(
        uuid: BluetoothUUID(0xFF00),
        characteristics: [
          SimulatedCharacteristic(uuid: BluetoothUUID(0xFF01), properties: [.writeWithoutResponse]) { write in
            received.append(write.value)
            guard write.value == [0] else { return }
            for await _ in marked { break }
            await write.connection.disconnect()
          }
        ])
    ])
    let (client, link) = try await GATTFixtures.connect(server, faults: faults)
    let handle = try #require(server.valueHandle(of: BluetoothUUID(0xFF01)))
    for value in (0..<8).map({ [UInt8($0)] }) + [lastValue] { try await client.writeWithoutResponse(value, to: handle) }
    await link.finished()
    #expect(received.all == [[0]], "the device saw \(received.all.count - 1) write(s) from after its drop")
  }

  @Test func adapterCapsConcurrentLinks() async throws {
    let capacity = LinkCapacity(limit: 1)
    let server = server()
    let (first, _) = try await SimulatedLink.open(to: server, device: GATTFixtures.device, capacity: capacity)
    await #expect(
      throws: LinkError(.tooManyLinks, peer: GATTFixtures.device, detail: "1 link(s) already open on this adapter")
    ) {
      _ = try await SimulatedLink.open(to: server, device: GATTFixtures.device, capacity: capacity)
    }
    await first.close()
    await capacity.waitForRoom()
    let (second, _) = try await SimulatedLink.open(to: server, device: GATTFixtures.device, capacity: capacity)
    await second.close()
  }

  @Test func latencyIsPaidPerRoundTrip() async throws {
    let clock = ContinuousClock()
    let (client, _) = try await GATTFixtures.connect(server(), model: LinkModel(roundTripLatency: .milliseconds(5)))
    let start = clock.now
    _ = try await client.exchangeMTU()
    _ = try await client.discoverPrimaryServices()
    let trips = await client.roundTrips
    #expect(clock.now - start >= .milliseconds(5) * trips)
  }

  @Test func busyDeviceRefusesMatchingRequests() async throws {
    let faults = LinkFaults(refuse: { pdu in
      if case .writeRequest = pdu { return .procedureAlreadyInProgress }
      return nil
    })
    let (client, _) = try await GATTFixtures.connect(server(), faults: faults)
    let fea1 = try await client.characteristic(BluetoothUUID(0xFEA1))
    await #expect(throws: ATTRequestError(code: .procedureAlreadyInProgress, request: 0x12, handle: fea1.valueHandle)) {
      try await client.write([1], to: fea1.valueHandle)
    }
    // Other requests are served normally.
    #expect(try await client.read(3) == Array("KBPro".utf8))
  }

  @Test func corruptResponseIsAProtocolViolationNotACrash() async throws {
    // Response 1 answers Exchange MTU; response 2 (the Read Response) is cut to its opcode (0B), which is a
    // valid empty Read Response — so corrupt the 3rd instead: a Read By Group Type Response of just 11.
    let (client, _) = try await GATTFixtures.connect(server(), faults: LinkFaults(corruptResponseNumber: 3))
    _ = try await client.exchangeMTU()
    #expect(try await client.read(3) == Array("KBPro".utf8))
    await #expect(throws: GATTError.self) { _ = try await client.discoverPrimaryServices() }
    // The link survives: the next request is answered.
    #expect(try await client.read(3) == Array("KBPro".utf8))
  }
}
