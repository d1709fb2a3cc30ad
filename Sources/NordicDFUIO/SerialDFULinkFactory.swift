import Glibc
import NordicDFU
import Synchronization

/// Opens the serial port afresh for every connection (nrfutil closes and reopens it between images,
/// docs/protocols/nordic-dfu.md §4) and waits for the bootloader as long as Nordic's own client does.
///
/// nrfutil 6.1.7 (`nordicsemi/dfu/dfu_transport_serial.py`, `DfuTransportSerial.DEFAULT_TIMEOUT = 30.0`)
/// gives a target 30 s to come back: `__ensure_bootloader` polls the USB device list every 0.5 s for up to
/// `timeout` seconds, then `open()` pings until `timeout` seconds have passed; `dfu.py` `_dfu_send_image`
/// also sleeps `--connect-delay` (default 3 s) before each image. A real nRF52 that has just activated a
/// SoftDevice + bootloader copies the bootloader and re-enumerates its USB port, which takes seconds, so
/// `readyTimeout` defaults to the same 30 s: after the first successful open, a port that is missing
/// (ENOENT/ENODEV/ENXIO) or busy is retried every 0.5 s and pings repeat until that much time has passed.
/// The very first open does not wait: a port that cannot be opened or is not a tty is reported at once
/// as `DFULinkUnavailable` (a mistyped `--port` must not look like a lost link). So is a port that stays
/// silent through the first ready wait (`SerialPortSilent`: not one byte back): it said "link lost 4 times
/// in a row" after 125 s, where nrfutil says "No ping response after opening COM port" after 65 s.
public final class SerialDFULinkFactory: DFULinkFactory {
  /// nrfutil 6.1.7's `DfuTransportSerial.DEFAULT_TIMEOUT`.
  public static let nrfutilReadyTimeout: Duration = .seconds(30)
  /// nrfutil's USB device-list poll interval in `__ensure_bootloader`.
  static let reappearPoll: Duration = .milliseconds(500)

  public let path: String
  public let baudRate: Int
  public let flowControl: Bool
  public let responseTimeout: Duration
  public let readyTimeout: Duration
  private let openedBefore = Mutex(false)
  private let answeredBefore = Mutex(false)

  public init(
    path: String, baudRate: Int = 115_200, flowControl: Bool = false, responseTimeout: Duration = .seconds(2),
    readyTimeout: Duration = SerialDFULinkFactory.nrfutilReadyTimeout
  ) {
    self.path = path
    self.baudRate = baudRate
    self.flowControl = flowControl
    self.responseTimeout = responseTimeout
    self.readyTimeout = readyTimeout
  }

  public func open(image: Int) async throws -> any DFULink {
    let clock = ContinuousClock()
    let deadline = clock.now + readyTimeout
    let reopening = openedBefore.withLock { $0 }
    while true {
      let channel: FileDescriptorChannel
      do {
        channel = try SerialPort.open(path: path, baudRate: baudRate, flowControl: flowControl)
      } catch .open(_, let code) where reopening && Self.mayReappear(code) && clock.now < deadline {
        try await Task.sleep(for: Self.reappearPoll)
        continue
      } catch {
        throw DFULinkUnavailable(error.description)
      }
      openedBefore.withLock { $0 = true }
      // Errors from here on (no answer, I/O on a port that vanished again) are a lost link: retried — but a
      // port that never answered anything since this factory was made is reported as silent at once.
      do {
        let link = try await SerialDFULink.open(
          channel: channel, responseTimeout: responseTimeout, readyTimeout: max(deadline - clock.now, .zero))
        answeredBefore.withLock { $0 = true }
        return link
      } catch let silent as SerialPortSilent where !answeredBefore.withLock({ $0 }) {
        throw DFULinkUnavailable(
          "\(path) is silent: \(silent) — is the device in its DFU bootloader, at \(baudRate) baud"
            + (flowControl ? " with" : " without") + " flow control, on this port?")
      }
    }
  }

  /// errno values of a USB serial port that is re-enumerating after the target reset.
  static func mayReappear(_ code: Int32) -> Bool { [ENOENT, ENODEV, ENXIO, EBUSY, EIO].contains(code) }
}
