import JSON
import KBeacon

/// Writes the JSON Schema (draft 2020-12) of profile version 1 from the same tables the decoder uses
/// (`ProfileKeys`, `ProfileFields`), so editors can complete and check profiles. The committed
/// `profiles/profile.schema.json` is this output; a test fails when they differ
/// (regenerate with `beacon-provision profile schema > profiles/profile.schema.json`). Written through the
/// one JSON writer (`JSONWriter.pretty`), so every string is escaped as JSON requires.
public enum ProfileSchema {
  public static func document() -> String {
    let slotVariants: [JSONValue] = ProfileFields.slotTypes.map { type, _ in
      let specs = ProfileFields.slotBase + (ProfileFields.slotByType[type] ?? [])
      var variant = fieldsObject(specs, required: ["slot", "type"])
      variant.set(property: "type", object([("const", .string(type))]))
      return object([
        ("if", object([("properties", object([("type", object([("const", .string(type))]))]))])),
        ("then", variant.node),
      ])
    }
    let slot = object([
      ("type", .string("object")),
      ("required", .array([.string("slot"), .string("type")])),
      ("properties", object(ProfileFields.slotBase.map { ($0.key, schema($0)) })),
      ("allOf", .array(slotVariants)),
    ])
    let desired = ObjectSchema(
      properties: ProfileFields.common.map { ($0.key, schema($0)) } + [
        ("slots", object([("type", .string("array")), ("items", slot)])),
        (
          "triggers",
          object([
            ("type", .string("array")),
            ("items", fieldsObject(ProfileFields.trigger, required: ["index", "type"]).node),
          ])
        ),
        (
          "sensors",
          object([("type", .string("array")), ("items", fieldsObject(ProfileFields.sensor, required: ["type"]).node)])
        ),
      ], required: [])
    let strings = object([
      ("type", .array([.string("string"), .string("array")])), ("items", object([("type", .string("string"))])),
    ])
    let select = ObjectSchema(
      properties: [
        (
          "addresses",
          object([
            ("type", .string("array")),
            (
              "items",
              object([("type", .string("string")), ("pattern", .string("^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$"))])
            ),
          ])
        ),
        ("name", object([("type", .string("string")), ("description", .string("Glob on the advertised name."))])),
        ("models", strings),
        (
          "firmware",
          object([("type", .string("string")), ("description", .string("Version range such as \">=5.20, <6\"."))])
        ),
        ("minRSSI", object([("type", .string("integer")), ("minimum", .int(-127)), ("maximum", .int(20))])),
        ("tags", strings),
      ], required: [])
    let text = object([("type", .string("string"))])
    let commands = commandsSchema()
    func variable(_ key: String) -> JSONValue {
      let which = key.hasPrefix("new") ? "the new password" : "the password"
      return object([
        ("type", .string("string")), ("pattern", .string(EnvironmentVariableName.pattern)),
        ("description", .string("The name of the environment variable that holds \(which) (not the password).")),
      ])
    }
    let auth = ObjectSchema(
      properties: ProfileKeys.auth.map { ($0, $0.hasSuffix("Env") ? variable($0) : text) }, required: [])
    let root = ObjectSchema(
      properties: [
        ("$schema", text),
        ("version", object([("const", .int(Profile.currentVersion))])),
        ("description", text),
        ("select", select.node),
        (
          "inventory",
          object([
            ("type", .string("string")),
            ("description", .string("CSV or JSON file of per-device variables keyed by address.")),
          ])
        ),
        ("auth", auth.node),
        (
          "allowUnreachable",
          object([
            ("type", .string("boolean")),
            (
              "description",
              .string(
                "Allow a configuration with no connectable slot; such a device can then be reconfigured only after a button press or power cycle."
              )
            ),
          ])
        ),
        ("desired", desired.node),
        ("commands", commands),
      ], required: ["version"])
    var head = root
    head.suffix = [
      (
        "oneOf",
        .array([
          object([("required", .array([.string("desired")]))]), object([("required", .array([.string("commands")]))]),
        ])
      )
    ]
    head.prefix = [
      ("$schema", JSONValue.string("https://json-schema.org/draft/2020-12/schema")),
      ("$id", .string("https://beacon-provision.invalid/profile.schema.json")),
      ("title", .string("beacon-provision profile, version 1")),
    ]
    return JSONWriter.pretty(head.node) + "\n"
  }

  /// `commands` (`TextCommand`): a text-stream device's settings as query, expected answer and set command.
  static func commandsSchema() -> JSONValue {
    let command = { (help: String) in
      object([
        ("type", .string("string")), ("minLength", .int(1)), ("pattern", .string("^[^\\r\\n]*$")),
        ("description", .string(help)),
      ])
    }
    let seconds = { (help: String) in
      object([
        ("type", .string("number")), ("minimum", number(ProfileDecoder.textTimeoutRange.lowerBound)),
        ("maximum", number(ProfileDecoder.textTimeoutRange.upperBound)), ("description", .string(help)),
      ])
    }
    let item = ObjectSchema(
      properties: [
        (
          "query",
          command("Command that asks for the setting, e.g. AT+NAME? (the device profile's terminator is appended).")
        ),
        (
          "expect",
          object([
            ("type", .string("string")), ("minLength", .int(1)),
            (
              "description",
              .string(
                "The answer line wanted, e.g. +NAME:{{name}}; between slashes a regular expression matched against whole lines."
              )
            ),
          ])
        ),
        ("set", command("Command that sets it, e.g. AT+NAME={{name}}; sent when no answer line is what expect says.")),
        (
          "secret",
          object([
            ("type", .string("boolean")),
            (
              "description",
              .string(
                "Mask this item's set command and answers in plans, reports and the journal.")
            ),
          ])
        ),
        ("timeoutFirst", seconds("Seconds to wait for the first notification of an answer (the device profile's: 2).")),
        ("timeoutNext", seconds("Seconds of silence that end an answer (the device profile's: 0.2).")),
      ], required: ["query", "expect", "set"])
    return object([
      ("type", .string("array")), ("minItems", .int(1)),
      (
        "description",
        .string(
          "Text-stream devices (Tertium TxRx, Nordic UART AT commands): each item's query is sent, and its set when the answer differs."
        )
      ),
      ("items", item.node),
    ])
  }

  /// An object keeping the entries' order.
  static func object(_ entries: [(String, JSONValue)]) -> JSONValue { .object(JSONObject(entries)) }

  /// A bound as the schema shows it: whole numbers without `.0` (`100`, not `100.0`).
  static func number(_ d: Double) -> JSONValue { Int(exactly: d).map(JSONValue.int) ?? .double(d) }

  /// The JSON Schema pattern of a text format whose rule a regular expression says whole (the others — UTF-8
  /// byte counts, Eddystone URL encoding — are checked by `profile check` only), so an editor flags what the
  /// profile check would refuse: a UUID's 8-4-4-4-12 hex digits, an Eddystone id's hex digits.
  static func textPattern(_ format: FieldSpec.TextFormat) -> String? {
    switch format {
    case .uuid: "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$"
    case .hex(let digits): "^(0[xX])?[0-9A-Fa-f]{\(digits)}$"
    default: nil
    }
  }

  static func fieldsObject(_ specs: [FieldSpec], required: [String]) -> ObjectSchema {
    ObjectSchema(properties: specs.map { ($0.key, schema($0)) }, required: required)
  }

  static func schema(_ spec: FieldSpec) -> JSONValue {
    var entries: [(String, JSONValue)] = [("description", .string(spec.help))]
    let template = object([("type", .string("string")), ("pattern", .string("\\{\\{"))])
    var base: [(String, JSONValue)]
    switch spec.kind {
    case .integer(let r):
      base = [("type", .string("integer")), ("minimum", .int(r.lowerBound)), ("maximum", .int(r.upperBound))]
    case .number(let r, _):
      base = [("type", .string("number")), ("minimum", number(r.lowerBound)), ("maximum", number(r.upperBound))]
    case .boolean: base = [("type", .string("boolean"))]
    case .text(let max, let format):
      base = [("type", .string("string")), ("maxLength", .int(max))]
      if let pattern = textPattern(format) { base.append(("pattern", .string(pattern))) }
    case .choice(let names): base = [("enum", .array(names.map { .string($0.0) }))]
    case .flags(let names):
      base = [
        ("type", .string("array")), ("uniqueItems", .bool(true)),
        ("items", object([("enum", .array(names.map { .string($0.0) }))])),
      ]
    case .switches(let names):
      base = [
        ("type", .string("array")), ("uniqueItems", .bool(true)),
        ("items", object([("enum", .array(names.map { .string($0.0) }))])),
      ]
    }
    if spec.templatable {
      entries.append(("anyOf", .array([object(base), template])))
    } else {
      entries += base
    }
    return object(entries)
  }
}

/// An object schema with `additionalProperties: false`.
struct ObjectSchema {
  var prefix: [(String, JSONValue)] = []
  /// Entries after `additionalProperties` (the root's `oneOf`).
  var suffix: [(String, JSONValue)] = []
  var properties: [(String, JSONValue)]
  var required: [String]

  init(properties: [(String, JSONValue)], required: [String]) {
    self.properties = properties
    self.required = required
  }

  /// Replaces the property schema `key`.
  mutating func set(property key: String, _ node: JSONValue) {
    if let i = properties.firstIndex(where: { $0.0 == key }) { properties[i].1 = node }
  }

  var node: JSONValue {
    var entries = prefix + [("type", JSONValue.string("object"))]
    if !required.isEmpty { entries.append(("required", .array(required.map { .string($0) }))) }
    entries.append(("properties", .object(JSONObject(properties))))
    entries.append(("additionalProperties", .bool(false)))
    entries += suffix
    return .object(JSONObject(entries))
  }
}
