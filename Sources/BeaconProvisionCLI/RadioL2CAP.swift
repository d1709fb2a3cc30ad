import ArgumentParser
import BeaconCore
import BlueZ
import Foundation

/// `radio listen`: accepts L2CAP LE links on CID 4 and echoes every SDU back.
struct RadioListen: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "listen", abstract: "Accept L2CAP LE links on the ATT channel and echo what arrives.")

  @Option(help: "The adapter (hci1, …).") var adapter = "hci1"
  @Option(help: "Links to serve before exiting.") var count = 1
  @Option(help: "Seconds to wait for each link.") var timeout: Double = 60

  func run() async throws {
    do {
      let listener = try L2CAPListener(adapter: try Adapter.named(adapter))
      defer { listener.close() }
      print("listening on \(adapter) CID 4")
      fflush(nil)
      for _ in 0..<count {
        let link = try await listener.accept(timeout: .milliseconds(Int(timeout * 1000)))
        print("accepted \(link.peer) (\(link.peerType))")
        fflush(nil)
        while let sdu = try? await link.receive() {
          print("received \(Hex.encode(sdu))")
          fflush(nil)
          try link.send(sdu)
        }
        print("link closed")
        link.close()
      }
    } catch {
      throw liveFailure(error)
    }
  }
}

/// `radio connect`: opens an L2CAP LE link on CID 4, sends one SDU and prints the reply.
struct RadioConnect: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "connect", abstract: "Connect on the ATT channel, send hex bytes, print the reply.")

  @Option(help: "The adapter (hci0, …).") var adapter = "hci0"
  @Option(help: "public or random.") var type = "public"
  @Option(help: "Connect timeout in seconds.") var timeout: Double = 20
  @Option(help: "SDUs to print before closing (a BlueZ peer may send its own ATT requests first).")
  var replies = 1
  @Argument(help: "The peer address.") var address: String
  @Argument(help: "Bytes to send (hex).") var data: String

  func run() async throws {
    guard let peer = BluetoothAddress(address) else { throw CLIFailure("'\(address)' is not a Bluetooth address") }
    guard let payload = Hex.decode(data) else { throw CLIFailure("the data must be hex") }
    let central = BlueZCentral(adapter: adapter)
    do {
      let clock = ContinuousClock()
      let start = clock.now
      let link = try await central.openL2CAP(
        to: peer, type: type == "random" ? .random : .public, timeout: .milliseconds(Int(timeout * 1000)))
      print("connected to \(link.peer) in \(clock.now - start)")
      try link.send(payload)
      for index in 0..<max(1, replies) {
        do {
          print("reply \(Hex.encode(try await link.receive(timeout: .seconds(index == 0 ? 10 : 3))))")
        } catch is ControllerCommandError where index > 0 {
          break  // no further SDU within 3 s: fine after the first
        }
      }
      link.close()
    } catch {
      throw liveFailure(error)
    }
  }
}

/// `radio gatt`: `BlueZCentral.connect` (L2CAP CID 4 → `FileDescriptorBearer`) then the GATT client:
/// MTU exchange, full discovery, and a read of the GAP Device Name when the peer has one.
struct RadioGATT: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "gatt", abstract: "Connect through BlueZCentral and list the peer's GATT services.")

  @Option(help: "The adapter (hci0, …).") var adapter = "hci0"
  @Option(help: "public or random.") var type = "public"
  @Option(help: "Connect timeout in seconds.") var timeout: Double = 20
  @Argument(help: "The peer address.") var address: String

  func run() async throws {
    guard let peer = BluetoothAddress(address) else { throw CLIFailure("'\(address)' is not a Bluetooth address") }
    do {
      let bearer = try await BlueZCentral(adapter: adapter).connect(
        to: peer, type: type == "random" ? .random : .public, timeout: .milliseconds(Int(timeout * 1000)))
      let client = GATTClient(bearer: bearer, transactionTimeout: .seconds(10))
      print("connected to \(peer); MTU \(try await client.exchangeMTU())")
      let database = try await client.discover()
      for service in database.services {
        print("service \(service.uuid) handles \(service.startHandle)-\(service.endHandle)")
        for c in service.characteristics { print("  characteristic \(c.uuid) value handle \(c.valueHandle) [\(c.properties)]") }
      }
      if let name = database.characteristic(BluetoothUUID(0x2A00)), name.properties.contains(.read) {
        print("device name \"\(String(decoding: try await client.read(name.valueHandle), as: UTF8.self))\"")
      }
      await client.close()
    } catch {
      throw liveFailure(error)
    }
  }
}
