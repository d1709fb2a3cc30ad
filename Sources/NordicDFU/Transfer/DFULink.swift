/// One open connection to a DFU bootloader as the transfer runner sees it, whatever carries it (UART
/// SLIP frames, or GATT Control Point + Packet characteristics). Errors mean the link is unusable.
public protocol DFULink: Sendable {
  /// The largest object-data write payload this link carries (docs/protocols/nordic-dfu.md §2.6 / §4).
  var packetSize: Int { get }
  /// Sends a request and returns its response (requests are answered in order, §2.4).
  func request(_ request: ControlPointRequest) async throws -> ControlPointResponse
  /// Writes object data without a response.
  func writePacket(_ bytes: [UInt8]) async throws
  /// Waits for the next PRN receipt.
  func receipt() async throws -> ControlPointResponse
  /// Closes the link (after the final Execute the target resets by itself).
  func close() async
}

/// Opens links to the bootloader: `image` is the index of the image about to be sent (the same index again
/// after a drop, the next one after a reset between images).
public protocol DFULinkFactory: Sendable {
  func open(image: Int) async throws -> any DFULink
}

/// The transfer could not even start or the link failed in a way the engine does not handle.
public struct DFUTransportError: Error, Equatable, Sendable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// Thrown by a `DFULinkFactory` when the link cannot be opened at all and reopening will not help (a serial
/// port that does not exist or is not a tty): the transfer stops at once instead of counting link losses.
public struct DFULinkUnavailable: Error, Equatable, Sendable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
