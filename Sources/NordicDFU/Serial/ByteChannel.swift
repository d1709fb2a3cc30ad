/// A bidirectional byte pipe (a tty, a pty master, a test pipe): the I/O edge the serial DFU client and the
/// simulated serial target are written against. `incoming` yields raw bytes as they arrive and finishes
/// when the channel closes.
public protocol ByteChannel: Sendable {
  func write(_ bytes: [UInt8]) async throws
  var incoming: AsyncThrowingStream<[UInt8], any Error> { get }
  /// Closes the channel; returns when no more bytes will be read from it.
  func close() async
}
