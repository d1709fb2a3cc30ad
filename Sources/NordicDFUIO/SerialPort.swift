import Glibc

/// Opens a tty for Secure DFU over UART (docs/protocols/nordic-dfu.md §4): raw mode (cfmakeraw), 8N1, receiver on,
/// modem lines ignored, the given baud rate, optional RTS/CTS flow control (nrfutil `-fc`).
public enum SerialPort {
  public static func open(path: String, baudRate: Int = 115_200, flowControl: Bool = false) throws(SerialPortError)
    -> FileDescriptorChannel
  {
    let fd = Glibc.open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
    guard fd >= 0 else { throw .open(path: path, errno: errno) }
    do {
      try configureRaw(fd: fd, baudRate: baudRate, flowControl: flowControl)
    } catch {
      Glibc.close(fd)
      if case .configure(ENOTTY) = error { throw .notATerminal(path: path) }
      throw error
    }
    return FileDescriptorChannel(fd: fd)
  }

  /// Puts `fd` in raw mode; used by the client on the tty and by the simulator on its pty.
  public static func configureRaw(fd: Int32, baudRate: Int, flowControl: Bool) throws(SerialPortError) {
    var tio = termios()
    guard tcgetattr(fd, &tio) == 0 else { throw .configure(errno: errno) }
    cfmakeraw(&tio)
    tio.c_cflag |= tcflag_t(CLOCAL | CREAD)
    if flowControl { tio.c_cflag |= tcflag_t(CRTSCTS) } else { tio.c_cflag &= ~tcflag_t(CRTSCTS) }
    tio.c_cc.6 = 0  // VMIN: reads return what is there (the reader thread polls first)
    tio.c_cc.5 = 0  // VTIME
    let speed = try speedConstant(baudRate)
    guard cfsetispeed(&tio, speed) == 0, cfsetospeed(&tio, speed) == 0 else { throw .configure(errno: errno) }
    guard tcsetattr(fd, TCSANOW, &tio) == 0 else { throw .configure(errno: errno) }
    // Drop anything still queued from an earlier session (a late answer after a timeout).
    _ = tcflush(fd, TCIOFLUSH)
  }

  static func speedConstant(_ baud: Int) throws(SerialPortError) -> speed_t {
    switch baud {
    case 9600: speed_t(B9600)
    case 19200: speed_t(B19200)
    case 38400: speed_t(B38400)
    case 57600: speed_t(B57600)
    case 115_200: speed_t(B115200)
    case 230_400: speed_t(B230400)
    case 460_800: speed_t(B460800)
    case 921_600: speed_t(B921600)
    case 1_000_000: speed_t(B1000000)
    default: throw .unsupportedBaudRate(baud)
    }
  }
}
