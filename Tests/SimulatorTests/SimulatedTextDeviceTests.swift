import BeaconCore
import Foundation
import JSON
import Synchronization
import Testing

@testable import Simulator
@testable import TextStream

/// The simulated text-stream devices, through the real client over a simulated GATT link.
@Suite(.timeLimit(.minutes(5))) struct SimulatedTextDeviceTests {
  static let reader = BluetoothAddress("C7:08:00:00:00:01")!
  static let uart = BluetoothAddress("6E:40:00:00:00:01")!

  static func fleet(reader section: TextStreamSection = TextStreamSection()) -> SimulatedFleet {
    SimulatedFleet(devices: [
      SimulatedDevice(address: reader, kind: .tertiumReader, name: "TxRx_Reader", textStream: section),
      SimulatedDevice(address: uart, kind: .nordicUART, name: "AT_Sensor", intervalMs: 1000),
    ])
  }

  /// Timeouts for the tests that are not about timing: an answer still ends by silence, but a fragment that a
  /// loaded two-core machine delivers late (the whole suite runs in parallel) does not cut it. 3 s between
  /// fragments: at 1 s, INVENTORY's 25 notifications at MTU 23 were once cut while CPU-heavy DFU suites ran.
  /// Generous everywhere, the sends' acknowledgements included: a clean-clone CI run under load once waited
  /// more than the library's 2 s for a write's acknowledgement from the in-process simulated device.
  static let patient = TextStreamTimeouts(
    firstFragmentSend: .seconds(10), laterFragmentSend: .seconds(10), firstPacket: .seconds(5),
    interFragment: .seconds(3))

  static func open(
    _ simulation: KBeaconSimulation, _ address: BluetoothAddress, mtu: Int = 247,
    timeouts: TextStreamTimeouts = patient
  ) async throws -> TextStreamClient {
    let client = GATTClient(bearer: try await simulation.connect(to: address), preferredMTU: mtu)
    return TextStreamClient(link: try await GATTTextStreamLink.open(client), timeouts: timeouts)
  }

  /// `INVENTORY`: 12 tags, about 500 bytes, in several notifications of ATT_MTU − 3 at MTU 23 and 247.
  @Test(arguments: [23, 247])
  func readerAnswerSpansNotificationsAndExceedsTheMTU(mtu: Int) async throws {
    let simulation = KBeaconSimulation(fleet: Self.fleet(), now: { 0 })
    let client = try await Self.open(simulation, Self.reader, mtu: mtu)
    #expect(client.link.profile == .tertiumTxRx)
    let answer = try await client.send("INVENTORY")
    #expect(answer.lines.count == 13 && answer.lines.last == "OK")
    #expect(answer.bytes.count > mtu)
    #expect(answer.notifications == (answer.bytes.count + mtu - 4) / (mtu - 3))
    #expect(try await client.send("VER").trimmedText == "TxRx-SIM 1.0 tertium-txrx")
    await client.close()
  }

  /// An answer delay above the first-packet timeout is a receive timeout; a gap between notifications
  /// above the inter-fragment timeout cuts the answer, the rest arriving unsolicited.
  @Test func answerDelaysExerciseBothTimeouts() async throws {
    let slow = KBeaconSimulation(fleet: Self.fleet(reader: TextStreamSection(answerDelayMs: 1000)), now: { 0 })
    let client = try await Self.open(slow, Self.reader, timeouts: TextStreamTimeouts())
    let short = TextStreamTimeouts().overriding(firstPacket: .milliseconds(100))
    await #expect(throws: TextStreamError.receiveTimeout(after: .milliseconds(100))) {
      try await client.send("VER", timeouts: short)
    }
    await client.close()

    // A 1 s gap against the 200 ms inter-fragment timeout: late timers on a loaded machine still cut it.
    let gappy = KBeaconSimulation(fleet: Self.fleet(reader: TextStreamSection(fragmentGapMs: 1000)), now: { 0 })
    let cut = try await Self.open(gappy, Self.reader, mtu: 23, timeouts: TextStreamTimeouts())
    let first = try await cut.send("INVENTORY")
    #expect(first.notifications == 1 && first.bytes.count == 20)
    var rest = cut.unsolicited.makeAsyncIterator()
    #expect(await rest.next()?.count == 20)
    await cut.close()
  }

  /// `dropLinkMidAnswer` (the fault matrix's text-stream group): the first answer stops halfway and the device
  /// drops the link; the next link's answer is whole.
  @Test func aDeviceDroppingTheLinkMidAnswerCutsOnlyTheFirstAnswers() async throws {
    let simulation = KBeaconSimulation(fleet: Self.fleet(reader: TextStreamSection(dropLinkMidAnswer: 1)), now: { 0 })
    let client = try await Self.open(simulation, Self.reader)
    let first = try? await client.send("INVENTORY")
    #expect(first.map { $0.lines.last != "OK" } ?? true, "the first answer came whole")
    await #expect(throws: (any Error).self) { try await client.send("VER") }
    await client.close()
    let again = try await Self.open(simulation, Self.reader)
    #expect(try await again.send("INVENTORY").lines.last == "OK")
    await again.close()
  }

  /// A write while the reader is still sending an answer is refused busy.
  @Test func busyRefusalWhileAnswering() async throws {
    let simulation = KBeaconSimulation(fleet: Self.fleet(reader: TextStreamSection(fragmentGapMs: 1000)), now: { 0 })
    let client = try await Self.open(simulation, Self.reader, mtu: 23, timeouts: TextStreamTimeouts())
    _ = try await client.send("INVENTORY")  // cut after the first notification; the device goes on sending
    await #expect {
      try await client.send("VER")
    } throws: {
      ($0 as? TextStreamError)?.code == "device-busy"
    }
    #expect(await simulation.textDevices.device(Self.reader)?.busyRefusals == 1)
    await client.close()
  }

  /// The AT device: queries, sets with range checks, and its settings kept across links and in the
  /// advertised name.
  @Test func atDeviceKeepsItsSettings() async throws {
    let simulation = KBeaconSimulation(fleet: Self.fleet(), now: { 0 })
    let client = try await Self.open(simulation, Self.uart)
    #expect(client.link.profile == .nordicUART)
    #expect(try await client.send("AT+NAME?").lines == ["+NAME:AT_Sensor", "OK"])
    #expect(try await client.send("AT+NAME=Dock-3").trimmedText == "OK")
    #expect(try await client.send("AT+INTERVAL=250").trimmedText == "OK")
    #expect(try await client.send("AT+TXPOWER=5").trimmedText == "ERROR")
    #expect(try await client.send("AT+TXPOWER=-4").trimmedText == "OK")
    #expect(try await client.send("AT+BOGUS").trimmedText == "ERROR")
    await client.close()
    let again = try await Self.open(simulation, Self.uart)
    #expect(try await again.send("AT+NAME?").lines.first == "+NAME:Dock-3")
    #expect(try await again.send("AT+TXPOWER?").lines.first == "+TXPOWER:-4")
    await again.close()
    let settings = try #require(await simulation.textDevices.snapshots()[Self.uart])
    #expect(settings == SimulatedATCommands(name: "Dock-3", intervalMs: 250, txPower: -4, writes: 3))
    let advertised = await simulation.advertisedDevice(Self.fleet().devices[1])
    #expect(advertised.name == "Dock-3" && advertised.intervalMs == 250)
  }

  /// Each set command the device accepts is handed to the write log first, keyed by the setting it names, on the
  /// device's link count — a set of the value already held too, so a set sent twice shows twice; a set the log
  /// refuses is undone and the link dropped unanswered.
  @Test func anATSetGoesToTheWriteLogAndOneItCannotRecordIsUndone() async throws {
    let simulation = KBeaconSimulation(fleet: Self.fleet(), now: { 0 })
    let logged = Mutex<[SimulatedWrite]>([])
    let refuse = Mutex(false)
    simulation.setWriteObserver { write in
      guard !refuse.withLock({ $0 }) else { return false }
      logged.withLock { $0.append(write) }
      return true
    }
    let client = try await Self.open(simulation, Self.uart)
    #expect(try await client.send("AT+NAME=Dock-3").trimmedText == "OK")
    #expect(try await client.send("AT+NAME=Dock-3").trimmedText == "OK")  // the same value: logged, no change
    #expect(try await client.send("AT+INTERVAL=250").trimmedText == "OK")
    refuse.withLock { $0 = true }
    await #expect(throws: (any Error).self) { try await client.send("AT+TXPOWER=-4") }
    await client.close()
    #expect(logged.withLock { $0.map(\.keys) } == [["name"], ["name"], ["interval"]])
    #expect(
      logged.withLock { $0.allSatisfy { $0.what == "at" && $0.link == 1 && $0.address == Self.uart.description } })
    let settings = try #require(await simulation.textDevices.snapshots()[Self.uart])
    #expect(settings == SimulatedATCommands(name: "Dock-3", intervalMs: 250, txPower: 0, writes: 2))
  }

  /// The advertising names the service, so a scan can tell a text-stream device before connecting.
  @Test func advertisesItsServiceUUID() throws {
    var advertiser = SimulatedAdvertiser(device: Self.fleet().devices[1])
    let pdu = advertiser.nextPDU(elapsed: .zero).data
    let uuids = AdvertisingData(pdu).elements.compactMap { structure -> [BluetoothUUID]? in
      if case .serviceUUIDs(let list) = structure { return list.uuids }
      return nil
    }.flatMap { $0 }
    #expect(TextStreamProfile.matching(advertised: uuids) == .nordicUART)
  }

  @Test func fleetFileSection() throws {
    let json = """
      {"version": 1, "devices": [{"address": "C7:08:00:00:00:09", "kind": "tertiumReader",
        "textStream": {"profile": "zhaga", "answerDelayMs": 10, "tags": 3}}]}
      """
    let fleet = try SimulatedFleet.decode(Data(json.utf8))
    #expect(fleet.devices[0].connectable && fleet.devices[0].textStream?.profile == "zhaga")
    let bad =
      #"{"version": 1, "devices": [{"address": "C7:08:00:00:00:09", "kind": "tertiumReader", "textStream": {"profile": "nope"}}]}"#
    #expect(throws: JSONDiagnostic.self) { try SimulatedFleet.decode(Data(bad.utf8)) }
  }
}
