extension SLIPDecoder {
  /// The complete frames of a byte stream (invalid frames dropped, docs/protocols/nordic-dfu.md §4); finishes when the bytes end or
  /// fail, and stops reading when the consumer goes away.
  static func frames(of bytes: AsyncThrowingStream<[UInt8], any Error>) -> AsyncStream<[UInt8]> {
    AsyncStream { continuation in
      let reader = Task {
        var decoder = SLIPDecoder()
        do {
          for try await chunk in bytes {
            for case .frame(let frame) in decoder.feed(chunk) { continuation.yield(frame) }
          }
        } catch {}
        continuation.finish()
      }
      continuation.onTermination = { _ in reader.cancel() }
    }
  }
}
