import ArgumentParser
import Foundation
import Simulator

/// `beacon-provision sim reset`: forget what earlier runs did to the simulated fleet.
struct SimResetCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "reset", abstract: "Restore the simulated fleet to its built-in (or fleet-file) state.",
    discussion: ExitStatus.paragraph("0 restored; 1 an error (an unreadable fleet file, an unwritable state directory)")
  )

  @Option(help: ArgumentHelp("Reset the fleet described by this file instead of the built-in one.", valueName: "file"))
  var fleet: String?

  @Option(help: "The state directory (default: $XDG_STATE_HOME/beacon-provision).")
  var stateDir: String?

  func run() throws {
    let store = SimulatorStateStore(stateDirectory: StateDirectory.resolve(stateDir), fleetFile: fleet)
    do {
      let hadState = try store.reset()
      let had = try store.writeLog.remove() || hadState
      print(had ? "simulated fleet reset (removed \(store.path))" : "simulated fleet already in its initial state")
    } catch {
      throw CLIFailure("cannot reset the simulated fleet: \(error)")
    }
  }
}
