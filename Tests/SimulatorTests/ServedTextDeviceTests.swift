import BeaconCore
import BlueZ
import Glibc
import Testing

@testable import Simulator
@testable import TextStream

/// A text-stream device served as `sim serve` serves it (`ServedGATTLink` over an fd bearer, as an accepted
/// L2CAP socket is), reached by the real client over a socketpair — everything of scripts/vm/scenarios/txrx.sh
/// but the controller. Its answer goes out after the Write Response (`GATTServerConnection.afterResponse`),
/// which the served link once never ran: each command was acked and never answered.
@Suite(.timeLimit(.minutes(1))) struct ServedTextDeviceTests {
  @Test func aServedATDeviceAnswersAndKeepsWhatIsSet() async throws {
    let address = BluetoothAddress("00:AA:01:01:00:01")!
    let entry = SimulatedDevice(address: address, kind: .nordicUART, name: "AT_Served", intervalMs: 500)
    let devices = TextDeviceSimulation(fleet: SimulatedFleet(devices: [entry]))
    let server = try #require(devices.server(for: entry))

    var fds: [Int32] = [-1, -1]
    #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0)
    let served = try FileDescriptorBearer(fileDescriptor: fds[0], peer: BluetoothAddress(rawValue: 7))
    let serving = Task { await ServedGATTLink.serve(server, over: served) }
    let bearer = try FileDescriptorBearer(fileDescriptor: fds[1], peer: address)
    let link = try await GATTTextStreamLink.open(GATTClient(bearer: bearer))
    #expect(link.profile == .nordicUART)
    let client = TextStreamClient(link: link, timeouts: SimulatedTextDeviceTests.patient)

    #expect(try await client.send("AT+NAME?").lines == ["+NAME:AT_Served", "OK"])
    #expect(try await client.send("AT+NAME=dock-7").lines == ["OK"])
    #expect(try await client.send("AT+NAME?").lines == ["+NAME:dock-7", "OK"])
    #expect(await devices.device(address)?.received == ["AT+NAME?", "AT+NAME=dock-7", "AT+NAME?"])
    await client.close()
    _ = await serving.value
  }
}
