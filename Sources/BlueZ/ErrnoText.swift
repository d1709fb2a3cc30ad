import Glibc

/// The C library's message for an `errno` value. It goes through `strerror_r` (the XSI form, which is what
/// Swift's Glibc imports) into a buffer of the caller's own: `strerror` may hand back a buffer shared by
/// every thread, and these messages are made on reader threads, send queues and the cooperative pool at
/// once.
public enum ErrnoText {
  public static func message(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard strerror_r(code, &buffer, buffer.count) == 0 else { return "Unknown error \(code)" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
