import BeaconCore
import Simulator

extension SimulatedBootloaders {
  /// Returns once the device whose application is at `application` is out of its bootloader (at once when
  /// it is not in it): the bootloaders' own `changes()` stream says when it leaves — no polling.
  func waitUntilLeft(_ application: BluetoothAddress) async {
    let changes = changes()  // subscribed before the check, so an exit in between is not missed
    guard isInBootloader(application) else { return }
    for await change in changes {
      if case .left(application, _) = change { return }
    }
  }
}
