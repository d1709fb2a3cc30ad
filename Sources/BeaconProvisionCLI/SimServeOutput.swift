import BeaconCore
import Foundation
import NordicDFU
import Simulator
import Synchronization

/// The lines `sim serve` prints, one per event, written unbuffered so a scenario reading a pipe sees each
/// at once:
///
///     serving DD:34:02:06:D1:01 (kbeaconPro "KBPro_214811") on hci1 as 00:AA:01:01:00:01, connectable, legacy advertising
///     serving DD:34:02:06:D1:02 (kbeaconPro "KBPro_VM02") on hci2 as DD:34:02:06:D1:02 (random), connectable, legacy advertising
///     hci1: link from 00:AA:01:00:00:00 (public)
///     hci1: link from 00:AA:01:00:00:00 closed after 12 ATT PDUs
///     hci1: DD:34:02:06:D1:01 is in its DFU bootloader: advertising "Dfu010001" as 00:AA:01:01:00:02 (random)
///     hci1: link from 00:AA:01:00:00:00 (public) to the DFU bootloader
///     hci1: DD:34:02:06:D1:01 left its DFU bootloader: new application fw_version 66051 (V660.51)
enum SimServeOutput {
  static func line(_ event: ServedDevice.Event) { write(text(event)) }

  /// The line of one event; outside text in it (names) is escaped (`TerminalText`).
  static func text(_ event: ServedDevice.Event) -> String {
    switch event {
    case .advertising(let adapter, let fleetAddress, let device, let extended):
      // The fleet file's name and a DFU package's advertised name are outside text: escaped.
      let name = device.name.map { " \"\($0.terminalSafe)\"" } ?? ""
      var text = "serving \(fleetAddress) (\(device.kind.rawValue)\(name)) on \(adapter) as \(device.address)"
      text += device.addressType == .random ? " (random), " : ", "
      text +=
        device.connectable
        ? "connectable" : (SimulatedAdvertiser(device: device).pduKind == .scannable ? "scannable" : "non-connectable")
      text += extended ? ", extended advertising" : ", legacy advertising"
      return text
    case .linkOpened(let adapter, let peer, let type, let bootloader):
      return "\(adapter): link from \(peer) (\(type))" + (bootloader ? " to the DFU bootloader" : "")
    case .linkClosed(let adapter, let peer, let pdus):
      return "\(adapter): link from \(peer) closed after \(pdus) ATT PDUs"
    case .bootloaderAdvertising(let adapter, let fleetAddress, let name, let address):
      return
        "\(adapter): \(fleetAddress) is in its DFU bootloader: advertising \"\(name.terminalSafe)\" as \(address) (random)"
    case .bootloaderLeft(let adapter, let fleetAddress, let exit):
      switch exit {
      case .newApplication(let version?):
        return
          "\(adapter): \(fleetAddress) left its DFU bootloader: new application fw_version \(version) (\(KKMFirmwareVersion.text(fwVersion: version)))"
      case .newApplication(nil):
        return "\(adapter): \(fleetAddress) left its DFU bootloader: new application"
      case .timedOut:
        return "\(adapter): \(fleetAddress) left its DFU bootloader: inactivity timeout, the old application runs"
      }
    }
  }

  static func write(_ text: String) { ScanCommand.writeLine(text) }
}

/// Fires once on SIGINT/SIGTERM (or when the waiting task is cancelled); `wait()` returns then. Keeps the
/// dispatch sources alive.
final class StopSignal: Sendable {
  private let state = Mutex<
    (fired: Bool, waiters: [CheckedContinuation<Void, Never>], sources: [any DispatchSourceSignal])
  >(
    (false, [], []))

  func keep(_ source: any DispatchSourceSignal) { state.withLock { $0.sources.append(source) } }

  func fire() {
    let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
      s.fired = true
      defer { s.waiters = [] }
      return s.waiters
    }
    for w in waiters { w.resume() }
  }

  func wait() async {
    await withTaskCancellationHandler {
      await withCheckedContinuation { waiter in
        let now = state.withLock { s -> Bool in
          if s.fired || Task.isCancelled { return true }
          s.waiters.append(waiter)
          return false
        }
        if now { waiter.resume() }
      }
    } onCancel: {
      fire()
    }
  }
}
