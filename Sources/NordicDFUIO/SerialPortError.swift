import Glibc

/// A serial-port failure (docs/protocols/nordic-dfu.md §4 transport). Messages come from `strerror_r`, which, unlike
/// `strerror`, is safe while other threads format errors too.
public enum SerialPortError: Error, Equatable, Sendable, CustomStringConvertible {
  case open(path: String, errno: Int32)
  case configure(errno: Int32)
  /// The path opened but is no terminal (a regular file, a directory's device node of another kind).
  case notATerminal(path: String)
  case io(errno: Int32)
  case hangup
  case closed
  case unsupportedBaudRate(Int)

  public var description: String {
    switch self {
    case .open(let path, let e): "cannot open \(path): \(Self.text(e))"
    case .configure(let e): "cannot configure the serial port: \(Self.text(e))"
    case .notATerminal(let path): "cannot use \(path): it is not a serial port (not a tty)"
    case .io(let e): "serial I/O error: \(Self.text(e))"
    case .hangup: "the serial port was hung up"
    case .closed: "the serial port is closed"
    case .unsupportedBaudRate(let b): "unsupported baud rate \(b)"
    }
  }

  /// The C library's message for `code`, through the reentrant `strerror_r`.
  static func text(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    return buffer.withUnsafeMutableBufferPointer { b in
      message(strerror_r(code, b.baseAddress!, b.count), buffer: b.baseAddress!)
    }
  }

  /// GNU `strerror_r` returns the message (possibly a static string, not the buffer).
  private static func message(_ result: UnsafeMutablePointer<CChar>?, buffer: UnsafeMutablePointer<CChar>) -> String {
    String(cString: result ?? buffer)
  }

  /// XSI `strerror_r` returns 0 and fills the buffer.
  private static func message(_ result: Int32, buffer: UnsafeMutablePointer<CChar>) -> String {
    result == 0 ? String(cString: buffer) : "error \(result)"
  }
}
