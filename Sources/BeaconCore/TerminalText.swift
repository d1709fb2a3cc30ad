/// Text from outside (a device's advertised name, a frame's URL, a firmware server's note, an Info Manager's
/// names and news) made safe for a human-readable line on the operator's terminal (no terminal
/// escape injection): anything nearby can advertise `"\u{1B}]0;pwned\u{07}\u{1B}[2J"`, which printed raw
/// retitles the terminal and clears the screen.
///
/// Every control character is shown as Swift's escape `\u{XX}` (two or more uppercase hex digits), so the
/// operator sees that it is there and what it is: C0 (U+0000…U+001F, tab and newline included: a value is
/// one cell of a one-line row), DEL (U+007F) and C1 (U+0080…U+009F, whose U+009B is a one-character CSI).
/// Everything else, including non-ASCII letters and emoji, is kept. [I] A backslash is kept as it is, so a
/// name that contains the six characters `\u{1B}` reads the same as one with an ESC: the display is for
/// people, and JSON output (`--json`, which escapes by its own rules) is the exact form.
///
/// Used by every human-readable output path that prints outside text; machine-readable output (JSON)
/// is not passed through it.
public enum TerminalText {
  /// `text` with every control character replaced by `\u{XX}`; the same string when it has none. With
  /// `keepingLineBreaks`, for prose printed as a block of lines (news, a release note), a line feed stays a
  /// line feed (a carriage return, which moves back over what was printed, is still escaped).
  public static func escaped(_ text: String, keepingLineBreaks: Bool = false) -> String {
    func escapes(_ scalar: Unicode.Scalar) -> Bool { isControl(scalar) && !(keepingLineBreaks && scalar == "\n") }
    guard text.unicodeScalars.contains(where: escapes) else { return text }
    var result = ""
    result.reserveCapacity(text.utf8.count + 8)
    for scalar in text.unicodeScalars {
      if escapes(scalar) {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        result += "\\u{" + (hex.count < 2 ? "0" + hex : hex) + "}"
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// C0, DEL or C1.
  public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
  }
}

extension String {
  /// `TerminalText.escaped(self)`: this outside text with its control characters shown as `\u{XX}`.
  public var terminalSafe: String { TerminalText.escaped(self) }
}

extension TerminalText {
  /// Characters of an outside value an error message quotes before it cuts the value short.
  public static let echoLimit = 64

  /// An outside value quoted in an error message (hostile-input review, "error lines echo a 1 MB number or a 12 MB name
  /// in full"): its control characters escaped, and past `echoLimit` characters cut to the first
  /// `echoLimit` and `… (N bytes)`, N the value's whole length in UTF-8, so the line still says what the
  /// value starts with and how long it is.
  public static func echoed(_ text: String) -> String {
    var prefix = text.unicodeScalars.prefix(echoLimit + 1)
    guard prefix.count > echoLimit else { return escaped(text) }
    prefix.removeLast()
    return escaped(String(String.UnicodeScalarView(prefix))) + "… (\(text.utf8.count) bytes)"
  }
}

extension String {
  /// `TerminalText.echoed(self)`: this outside value as an error message quotes it, escaped and cut short.
  public var echoed: String { TerminalText.echoed(self) }
}
