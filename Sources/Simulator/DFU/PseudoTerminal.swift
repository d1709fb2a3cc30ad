import Glibc
import NordicDFU
import NordicDFUIO

/// A pseudo-terminal pair for serving a simulated UART device (docs/protocols/nordic-dfu.md §5: nrfutil's serial client
/// talks to a pty as to a USB-serial port). The master side is the device; clients open `path`. The
/// simulator keeps one slave descriptor open itself so the pty survives clients that close and reopen
/// the port (no hang-up storm), and so raw mode set here persists.
public final class PseudoTerminal: Sendable {
  /// The slave device path (`/dev/pts/N`).
  public let path: String
  let master: Int32
  let slaveHolder: Int32

  /// `TIOCSPTLCK` = _IOW('T', 0x31, int) and `TIOCGPTN` = _IOR('T', 0x30, unsigned int) from
  /// <asm-generic/ioctls.h> (function-like macros do not import into Swift).
  static let setPTLock: UInt = 0x4004_5431
  static let getPTNumber: UInt = 0x8004_5430

  public init() throws(SerialPortError) {
    // posix_openpt/grantpt/unlockpt/ptsname are not exported by Swift's Glibc module (they need
    // _XOPEN_SOURCE); on Linux they are exactly: open /dev/ptmx, TIOCSPTLCK 0, TIOCGPTN (devpts needs
    // no grantpt).
    let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
    guard master >= 0 else { throw .open(path: "/dev/ptmx", errno: errno) }
    var unlock: Int32 = 0
    var number: UInt32 = 0
    guard ioctl(master, Self.setPTLock, &unlock) == 0, ioctl(master, Self.getPTNumber, &number) == 0 else {
      let e = errno
      close(master)
      throw .configure(errno: e)
    }
    let path = "/dev/pts/\(number)"
    let slave = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
    guard slave >= 0 else {
      let e = errno
      close(master)
      throw .open(path: path, errno: e)
    }
    do {
      try SerialPort.configureRaw(fd: slave, baudRate: 115_200, flowControl: false)
      try SerialPort.configureRaw(fd: master, baudRate: 115_200, flowControl: false)
    } catch {
      close(slave)
      close(master)
      throw error
    }
    self.path = path
    self.master = master
    self.slaveHolder = slave
  }

  /// The device side as a channel (takes over the master descriptor; call once).
  public func deviceChannel() -> FileDescriptorChannel { FileDescriptorChannel(fd: master) }

  deinit { close(slaveHolder) }
}
