/// Compact JSON text in the SDKs' style (docs/protocols/kbeacon.md §4.2): no spaces or newlines, keys in the
/// object's order, `/` never escaped. Quotes, backslashes and control characters are escaped as JSON
/// requires (the SDKs strip backslashes, which would corrupt such strings; we keep them valid).
public enum JSONWriter {
  public static func text(_ value: JSONValue) -> String {
    var out = ""
    write(value, to: &out)
    return out
  }

  public static func bytes(_ value: JSONValue) -> [UInt8] { Array(text(value).utf8) }

  /// Indented JSON for people (two spaces, `"key": value`), same key order and number text. A list of
  /// strings stays on one line (`["a", "b"]`), as people write name lists.
  public static func pretty(_ value: JSONValue) -> String {
    var out = ""
    writePretty(value, indent: "", to: &out)
    return out
  }

  static func writePretty(_ value: JSONValue, indent: String, to out: inout String) {
    let inner = indent + "  "
    switch value {
    case .array(let items) where !items.isEmpty && items.allSatisfy({ $0.stringValue != nil }):
      out += "["
      for (i, item) in items.enumerated() {
        if i > 0 { out += ", " }
        write(item, to: &out)
      }
      out += "]"
    case .array(let items) where !items.isEmpty:
      out += "[\n"
      for (i, item) in items.enumerated() {
        out += inner
        writePretty(item, indent: inner, to: &out)
        out += i < items.count - 1 ? ",\n" : "\n"
      }
      out += indent + "]"
    case .object(let object) where !object.isEmpty:
      out += "{\n"
      for (i, entry) in object.entries.enumerated() {
        out += inner
        writeString(entry.key, to: &out)
        out += ": "
        writePretty(entry.value, indent: inner, to: &out)
        out += i < object.count - 1 ? ",\n" : "\n"
      }
      out += indent + "}"
    default:
      write(value, to: &out)
    }
  }

  static func write(_ value: JSONValue, to out: inout String) {
    switch value {
    case .null: out += "null"
    case .bool(let b): out += b ? "true" : "false"
    case .number(let n): out += n.text
    case .string(let s): writeString(s, to: &out)
    case .array(let items):
      out += "["
      for (i, item) in items.enumerated() {
        if i > 0 { out += "," }
        write(item, to: &out)
      }
      out += "]"
    case .object(let object):
      out += "{"
      for (i, entry) in object.entries.enumerated() {
        if i > 0 { out += "," }
        writeString(entry.key, to: &out)
        out += ":"
        write(entry.value, to: &out)
      }
      out += "}"
    }
  }

  static func writeString(_ s: String, to out: inout String) {
    out += "\""
    for scalar in s.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: out.unicodeScalars.append(scalar)
      }
    }
    out += "\""
  }
}
