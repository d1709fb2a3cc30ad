import ArgumentParser
import BeaconCore
import BlueZ
import Foundation

/// `radio connect`: opens an L2CAP LE link on CID 4, sends one SDU and prints the reply.
struct RadioConnectCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "connect", abstract: "Connect on the ATT channel, send hex bytes, print the reply.",
    discussion: ExitStatus.paragraph("0 a reply was printed; 1 an error (no such adapter, the link failed, no reply)"))

  @Option(help: "The adapter (hci0, …).") var adapter = "hci0"
  @Option(name: .customLong("address-type"), help: "public or random.") var addressType: AddressType = .public
  @Option(help: "Connect timeout in seconds.") var timeout: Double = 20
  @Option(help: "SDUs to print before closing (a BlueZ peer may send its own ATT requests first).")
  var replies = 1
  @Argument(help: "The peer address.") var address: String
  @Argument(help: "Bytes to send (hex).") var data: String

  func validate() throws { try SecondsOption.validate(timeout, "--timeout") }

  func run() async throws {
    let peer = try parseAddress(address)
    guard let payload = Hex.decode(data) else { throw CLIFailure("the data must be hex") }
    let central = CentralFactory.bluezCentral(adapter)
    do {
      let clock = ContinuousClock()
      let start = clock.now
      let link = try await central.openL2CAP(
        to: peer, type: addressType, timeout: SecondsOption.duration(timeout))
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
