/// A cache problem in one line: what failed and where.
public struct FirmwareCacheError: Error, Sendable, Hashable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
