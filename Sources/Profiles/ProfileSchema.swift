/// Writes the JSON Schema (draft 2020-12) of profile version 1 from the same tables the decoder uses
/// (`ProfileKeys`, `ProfileFields`), so editors can complete and check profiles. The committed
/// `profiles/profile.schema.json` is this output; a test fails when they differ
/// (regenerate with `beacon-provision profile schema > profiles/profile.schema.json`).
public enum ProfileSchema {
  public static func document() -> String {
    let slotVariants: [Node] = ProfileFields.slotTypes.map { type, _ in
      let specs = ProfileFields.slotBase + (ProfileFields.slotByType[type] ?? [])
      var object = fieldsObject(specs, required: ["slot", "type"])
      object.set("properties.type", .object([("const", .string(type))]))
      return .object([("if", .object([("properties", .object([("type", .object([("const", .string(type))]))]))])), ("then", object.node)])
    }
    let slot = Node.object([
      ("type", .string("object")),
      ("required", .array([.string("slot"), .string("type")])),
      ("properties", .object(ProfileFields.slotBase.map { ($0.key, schema($0)) })),
      ("allOf", .array(slotVariants)),
    ])
    let desired = ObjectSchema(
      properties: ProfileFields.common.map { ($0.key, schema($0)) } + [
        ("slots", .object([("type", .string("array")), ("items", slot)])),
        ("triggers", .object([("type", .string("array")), ("items", fieldsObject(ProfileFields.trigger, required: ["index", "type"]).node)])),
        ("sensors", .object([("type", .string("array")), ("items", fieldsObject(ProfileFields.sensor, required: ["type"]).node)])),
      ], required: [])
    let strings = Node.object([("type", .array([.string("string"), .string("array")])), ("items", .object([("type", .string("string"))]))])
    let select = ObjectSchema(properties: [
      ("addresses", .object([("type", .string("array")), ("items", .object([("type", .string("string")), ("pattern", .string("^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$"))]))])),
      ("name", .object([("type", .string("string")), ("description", .string("Glob on the advertised name."))])),
      ("models", strings),
      ("firmware", .object([("type", .string("string")), ("description", .string("Version range such as \">=5.20, <6\"."))])),
      ("minRSSI", .object([("type", .string("integer")), ("minimum", .int(-127)), ("maximum", .int(20))])),
      ("tags", strings),
    ], required: [])
    let text = Node.object([("type", .string("string"))])
    let auth = ObjectSchema(properties: ProfileKeys.auth.map { ($0, text) }, required: [])
    let root = ObjectSchema(properties: [
      ("$schema", text),
      ("version", .object([("const", .int(Profile.currentVersion))])),
      ("description", text),
      ("select", select.node),
      ("inventory", .object([("type", .string("string")), ("description", .string("CSV or JSON file of per-device variables keyed by address."))])),
      ("auth", auth.node),
      ("allowUnreachable", .object([("type", .string("boolean")), ("description", .string(
        "Allow a configuration with no connectable slot; such a device can then be reconfigured only after a button press or power cycle."))])),
      ("desired", desired.node),
    ], required: ["version", "desired"])
    var head = root
    head.prefix = [
      ("$schema", .string("https://json-schema.org/draft/2020-12/schema")),
      ("$id", .string("https://beacon-provision.invalid/profile.schema.json")),
      ("title", .string("beacon-provision profile, version 1")),
    ]
    return head.node.text(indent: 0) + "\n"
  }

  static func fieldsObject(_ specs: [FieldSpec], required: [String]) -> ObjectSchema {
    ObjectSchema(properties: specs.map { ($0.key, schema($0)) }, required: required)
  }

  static func schema(_ spec: FieldSpec) -> Node {
    var entries: [(String, Node)] = [("description", .string(spec.help))]
    let template = Node.object([("type", .string("string")), ("pattern", .string("\\{\\{"))])
    var base: [(String, Node)]
    switch spec.kind {
    case .integer(let r): base = [("type", .string("integer")), ("minimum", .int(r.lowerBound)), ("maximum", .int(r.upperBound))]
    case .number(let r, _): base = [("type", .string("number")), ("minimum", .number(r.lowerBound)), ("maximum", .number(r.upperBound))]
    case .boolean: base = [("type", .string("boolean"))]
    case .text(let max, _): base = [("type", .string("string")), ("maxLength", .int(max))]
    case .choice(let names): base = [("enum", .array(names.map { .string($0.0) }))]
    case .flags(let names): base = [("type", .string("array")), ("uniqueItems", .bool(true)), ("items", .object([("enum", .array(names.map { .string($0.0) }))]))]
    case .switches(let names): base = [("type", .string("array")), ("uniqueItems", .bool(true)), ("items", .object([("enum", .array(names.map { .string($0.0) }))]))]
    }
    if spec.templatable {
      entries.append(("anyOf", .array([.object(base), template])))
    } else {
      entries += base
    }
    return .object(entries)
  }
}

/// An object schema with `additionalProperties: false`.
struct ObjectSchema {
  var prefix: [(String, Node)] = []
  var properties: [(String, Node)]
  var required: [String]

  init(properties: [(String, Node)], required: [String]) {
    self.properties = properties
    self.required = required
  }

  mutating func set(_ dotted: String, _ node: Node) {
    let key = String(dotted.split(separator: ".").last!)
    if let i = properties.firstIndex(where: { $0.0 == key }) { properties[i].1 = node }
  }

  var node: Node {
    var entries = prefix + [("type", Node.string("object"))]
    if !required.isEmpty { entries.append(("required", .array(required.map { .string($0) }))) }
    entries.append(("properties", .object(properties)))
    entries.append(("additionalProperties", .bool(false)))
    return .object(entries)
  }
}

/// A JSON tree written with stable key order and two-space indentation.
indirect enum Node {
  case object([(String, Node)])
  case array([Node])
  case string(String)
  case int(Int)
  case number(Double)
  case bool(Bool)

  func text(indent: Int) -> String {
    let pad = String(repeating: "  ", count: indent + 1), end = String(repeating: "  ", count: indent)
    switch self {
    case .object(let entries):
      if entries.isEmpty { return "{}" }
      return "{\n" + entries.map { "\(pad)\(Node.quote($0.0)): \($0.1.text(indent: indent + 1))" }.joined(separator: ",\n") + "\n\(end)}"
    case .array(let items):
      if items.allSatisfy({ if case .string = $0 { true } else { false } }) {
        return "[" + items.map { $0.text(indent: 0) }.joined(separator: ", ") + "]"
      }
      return "[\n" + items.map { pad + $0.text(indent: indent + 1) }.joined(separator: ",\n") + "\n\(end)]"
    case .string(let s): return Node.quote(s)
    case .int(let i): return String(i)
    case .number(let d): return FieldSpec.Kind.plain(d)
    case .bool(let b): return String(b)
    }
  }

  static func quote(_ s: String) -> String {
    var out = "\""
    for c in s.unicodeScalars {
      switch c {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      default: out.unicodeScalars.append(c)
      }
    }
    return out + "\""
  }
}
