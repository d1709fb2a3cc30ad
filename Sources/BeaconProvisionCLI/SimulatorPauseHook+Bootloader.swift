import BeaconCore
import Fleet
import Foundation
import Simulator

/// `in-bootloader:ADDRESS` (`SimulatorPauseHook`): a gateway gone in the middle of a device's transfer. The
/// simulated bootloader keeps what it executed in the device's saved state (`SimulatedBootloaderRecord`); the
/// first time that state holds a firmware object of the hook's device (with `:0`, its init command), the process
/// says so on standard error and stops itself (`raise(SIGSTOP)`), once, for the test (or the demo) to kill it there. The device is then in its
/// bootloader with part of the image, as a real one is when its gateway dies mid-transfer, and another run
/// (`--resume`, another gateway) must finish it (`SeveralGatewaysCatalogueTests`, `DFUKeptBootloaderTests`).
extension SimulatorPauseHook {
  func pauseInBootloader(of simulator: SimulatedCentral) {
    guard let address else { return }
    let once = OnceFlag()
    // `:0`: at the first saved progress (the init command executed); else at the first firmware object.
    let afterCommand = bootloaderBytes == 0
    simulator.bootloaders.setProgressObserver { application, executedBytes in
      guard application.description == address, afterCommand || executedBytes > 0, once.take() else { return }
      FileHandle.standardError.write(
        Data("test hook: stopped in the bootloader of \(address) after \(executedBytes) bytes\n".utf8))
      raise(SIGSTOP)
    }
  }
}
