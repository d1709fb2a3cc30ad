/// UTF-8 validation for `JSONParser`: a file a person wrote is refused at its first invalid byte
/// (`Options.file`); the offset lets the error name the byte's line and column.
extension JSONParser {
  /// The offset of the first byte of `bytes` that does not belong to a valid UTF-8 sequence, nil if all do.
  public static func firstInvalidUTF8(_ bytes: some Collection<UInt8>) -> Int? {
    var decoder = UTF8()
    var iterator = bytes.makeIterator()
    var offset = 0
    while true {
      switch decoder.decode(&iterator) {
      case .scalarValue(let scalar): offset += UTF8.width(scalar)
      case .emptyInput: return nil
      case .error: return offset
      }
    }
  }
}
