import ArgumentParser
import BeaconCore
import BlueZ
import Foundation

/// `radio listen`: accepts L2CAP LE links on CID 4 and echoes every SDU back.
struct RadioListenCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "listen", abstract: "Accept L2CAP LE links on the ATT channel and echo what arrives.",
    discussion: ExitStatus.paragraph(
      "0 listened for the time given; 1 an error (no such adapter, the socket was refused)"))

  @Option(help: "The adapter (hci1, …).") var adapter = "hci1"
  @Option(help: "Links to serve before exiting.") var count = 1
  @Option(help: "Seconds to wait for each link.") var timeout: Double = 60

  func validate() throws {
    try SecondsOption.validate(timeout, "--timeout")
    guard count >= 1 else { throw ValidationError("--count must be at least 1 (got \(count))") }
  }

  func run() async throws {
    do {
      let listener = try CentralFactory.listener(on: adapter)
      defer { listener.close() }
      print("listening on \(adapter) CID 4")
      fflush(nil)
      for _ in 0..<count {
        let link = try await listener.accept(timeout: SecondsOption.duration(timeout))
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
