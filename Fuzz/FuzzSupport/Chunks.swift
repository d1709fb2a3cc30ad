/// Splits one fuzz input into several messages: each starts with a length byte, then that many bytes (the
/// last takes what is left). Lets one input stand for a sequence of notifications, events or reads, so the
/// fuzzer reaches state that only a conversation builds up (reassembly, exchanges).
public struct Chunks: Sequence, IteratorProtocol {
  private var rest: ArraySlice<UInt8>

  public init(_ bytes: [UInt8]) { rest = bytes[...] }

  public mutating func next() -> [UInt8]? {
    guard let length = rest.first else { return nil }
    rest = rest.dropFirst()
    let chunk = rest.prefix(Int(length))
    rest = rest.dropFirst(chunk.count)
    return Array(chunk)
  }
}
