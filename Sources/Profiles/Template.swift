import BeaconCore

/// A profile string with `{{…}}` placeholders, filled in per device.
///
/// Placeholders: an inventory column (`{{room}}`), or a built-in:
/// - `{{address}}` — `AA:BB:CC:DD:EE:FF`; `{{address_hex}}` — `AABBCCDDEEFF`;
/// - `{{index}}` — the device's 0-based row in the inventory or, without one, its position in
///   `select.addresses`; `{{index+N}}` adds N (e.g. a minor ID per device: `"minor": "{{index+100}}"`).
///
/// [I] `{{index}}` deliberately does not count scan order: what a scan finds changes from run to run, and a
/// minor ID must not. A device with no stable index fails with a clear reason instead.
public struct Template: Sendable, Hashable {
  public var text: String { didSet { pieces = Self.parse(text) } }
  /// The text split into literals and placeholders, or the reason it cannot be: parsed once, since a
  /// template is filled in for every device (1M inventory rows spent a quarter of their time re-parsing).
  private(set) var pieces: Result<[Piece], TemplateError>

  public init(_ text: String) {
    self.text = text
    pieces = Self.parse(text)
  }

  enum Piece: Hashable {
    case literal(String)
    case variable(String, offset: Int)
  }

  /// `text` split into literals and placeholders, or the reason it cannot be.
  static func parse(_ text: String) -> Result<[Piece], TemplateError> {
    var result: [Piece] = []
    var rest = Substring(text)
    while let open = rest.firstRange(of: "{{") {
      if open.lowerBound > rest.startIndex { result.append(.literal(String(rest[..<open.lowerBound]))) }
      guard let close = rest[open.upperBound...].firstRange(of: "}}") else {
        return .failure(TemplateError("unclosed \"{{\" in \"\(text.echoed)\""))
      }
      let inner = rest[open.upperBound..<close.lowerBound].trimmingWhitespace
      var name = inner
      var offset = 0
      if let plus = inner.firstIndex(where: { $0 == "+" || $0 == "-" }) {
        name = inner[..<plus].trimmingWhitespace
        let number = inner[plus...].filter { !$0.isWhitespace }
        guard let n = Int(number.hasPrefix("+") ? String(number.dropFirst()) : number) else {
          return .failure(TemplateError("\"{{\(inner)}}\": the offset must be a whole number"))
        }
        offset = n
      }
      guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
        return .failure(TemplateError("\"{{\(inner)}}\" is not a variable name"))
      }
      if offset != 0, name != "index" {
        return .failure(TemplateError("\"{{\(inner)}}\": only {{index}} takes an offset"))
      }
      result.append(.variable(name, offset: offset))
      rest = rest[close.upperBound...]
    }
    if !rest.isEmpty { result.append(.literal(String(rest))) }
    return .success(result)
  }

  public var syntaxError: String? {
    if case .failure(let e) = pieces { return e.message }
    return nil
  }

  /// The variable names used.
  public var variables: [String] {
    guard case .success(let p) = pieces else { return [] }
    return p.compactMap { if case .variable(let n, _) = $0 { n } else { nil } }
  }

  /// Fills in the placeholders from the device's variables; `escaping` transforms each filled-in value
  /// (a regular expression's escaping), and `unknown`, when given, stands in for a variable the device
  /// lacks (a syntax check before any device is known).
  public func render(
    _ variables: TemplateVariables, escaping: (String) -> String = { $0 }, unknown: ((String) -> String)? = nil
  ) -> Result<String, TemplateError> {
    switch pieces {
    case .failure(let e): return .failure(e)
    case .success(let pieces):
      var out = ""
      for piece in pieces {
        switch piece {
        case .literal(let s): out += s
        case .variable("index", let offset):
          guard let index = variables.index else {
            return .failure(TemplateError("{{index}} needs an inventory or select.addresses listing this device"))
          }
          let (sum, overflow) = index.addingReportingOverflow(offset)
          guard !overflow else {
            return .failure(TemplateError("{{index}} + \(offset) does not fit in a 64-bit integer"))
          }
          out += escaping(String(sum))
        case .variable(let name, _):
          guard let value = variables.value(name) ?? unknown?(name) else {
            let known = variables.names.sorted().joined(separator: ", ")
            return .failure(TemplateError("no variable \"\(name.echoed)\" for this device (known: \(known))"))
          }
          out += escaping(value)
        }
      }
      return .success(out)
    }
  }
}

/// What a template may refer to for one device.
public struct TemplateVariables: Sendable, Hashable {
  public var address: String
  public var index: Int?
  /// Inventory columns for this device.
  public var inventory: [String: String]

  public init(address: String, index: Int?, inventory: [String: String] = [:]) {
    self.address = address.uppercased()
    self.index = index
    self.inventory = inventory
  }

  func value(_ name: String) -> String? {
    switch name {
    case "address": address
    case "address_hex": address.filter { $0 != ":" }
    default: inventory[name]
    }
  }

  var names: [String] { ["address", "address_hex", "index"] + inventory.keys }
}

public struct TemplateError: Error, Sendable, Hashable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
