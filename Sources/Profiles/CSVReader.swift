import BeaconCore
import JSON
import KBeacon

/// A small RFC 4180 CSV reader: quoted fields, `""` escapes, CRLF or LF line ends.
enum CSVReader {
  struct Record {
    var fields: [String]
    var line: Int
  }

  /// The records, and the line where a quoted field began that the text ends inside (nil when every quote
  /// is closed).
  static func records(_ text: String) -> (records: [Record], unterminatedQuoteLine: Int?) {
    var records: [Record] = []
    var field = ""
    var fields: [String] = []
    var quoted = false
    var line = 1
    var recordLine = 1
    var quoteLine = 1
    var chars = Array(text).makeIterator()
    var pending: Character? = nil
    while let c = pending ?? chars.next() {
      pending = nil
      if quoted {
        if c == "\"" {
          let next = chars.next()
          if next == "\"" {
            field.append("\"")
          } else {
            quoted = false
            pending = next
          }
        } else {
          if c == "\n" { line += 1 }
          field.append(c)
        }
        continue
      }
      switch c {
      case "\"" where field.isEmpty:
        quoted = true
        quoteLine = line
      case ",":
        fields.append(field)
        field = ""
      case "\r\n", "\n":
        fields.append(field)
        records.append(Record(fields: fields, line: recordLine))
        fields = []
        field = ""
        line += 1
        recordLine = line
      case "\r": continue
      default: field.append(c)
      }
    }
    if quoted { return (records, quoteLine) }
    if !field.isEmpty || !fields.isEmpty {
      fields.append(field)
      records.append(Record(fields: fields, line: recordLine))
    }
    return (records, nil)
  }
}
