import Testing

@testable import KBeacon

/// The config model, key table and flat view (docs/protocols/kbeacon.md §6.3–§6.6, §7).
@Suite(.timeLimit(.minutes(1))) struct ConfigModelTests {
  @Test func tableRowsCarryTheSpecRanges() throws {
    #expect(KeyTable.spec(for: "advPrd", in: .slot)?.kind == .number(100...40000))
    #expect(KeyTable.spec(for: "txPwr", in: .slot)?.kind == .integer(-40...8))
    #expect(KeyTable.spec(for: "name", in: .common)?.kind == .text(0...18, .any))
    #expect(KeyTable.spec(for: "pwd", in: .common)?.access == .writeOnly)
    // trPara depends on the trigger type
    #expect(KeyTable.spec(for: "trPara", in: .trigger, type: 1)?.kind == .integer(2...127))
    #expect(KeyTable.spec(for: "trPara", in: .trigger, type: 12)?.kind == .integer(3...36000))
    // msItvl depends on the sensor type
    #expect(KeyTable.spec(for: "msItvl", in: .sensor, type: 0x41)?.kind == .integer(10...3600))
    #expect(KeyTable.spec(for: "majorID", in: .slot, type: 2) == nil)
    #expect(KeyTable.spec(for: "txPwr", in: .legacyCommon)?.kind == .integer(-40...5))
  }

  @Test func everyTypedKeyHasATableRow() {
    let typed: [(String, ConfigScope)] = [
      (CommonKey.name.name, .common), (CommonKey.nBlk.name, .common), (SlotKey.enItvl.name, .slot),
      (TriggerKey.aAng.name, .trigger), (SensorKey.uri.name, .sensor), (LegacyKey.htBlw.name, .legacyTrigger),
      (LegacyKey.tlmItvl.name, .legacyCommon),
    ]
    for (key, scope) in typed {
      #expect(
        KeyTable.keys(in: scope, type: nil).contains { $0.key == key }
          || KeyTable.all.contains { $0.key == key && $0.scope == scope })
    }
    // no duplicate rows for the same key, scope and type
    var seen = Set<String>()
    for row in KeyTable.all {
      for t in row.types.map(Array.init) ?? [-1] {
        #expect(seen.insert("\(row.scope).\(row.key).\(t)").inserted, "\(row)")
      }
    }
  }

  @Test func valueKindsCheckValues() {
    #expect(ConfigValueKind.flag.problem(with: .int(2)) != nil)
    #expect(ConfigValueKind.flag.problem(with: .bool(true)) == nil)
    #expect(ConfigValueKind.bitmask(0x3F).problem(with: .int(0x40)) != nil)
    #expect(ConfigValueKind.text(36...36, .uuid).problem(with: .string("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")) == nil)
    #expect(ConfigValueKind.text(36...36, .uuid).problem(with: .string("E2C56DB5-DFFB-48D2-B060-D0F5A71096EG")) != nil)
    #expect(ConfigValueKind.text(22...22, .hex(digits: 20)).problem(with: .string("0x00112233445566778899")) == nil)
    #expect(ConfigValueKind.number(100...40000).problem(with: .double(99.5)) != nil)
    #expect(ConfigValueKind.integer(0...65535).problem(with: .double(1.5)) != nil)
  }

  @Test func flatViewNamesEntriesByIdentityAndInverts() throws {
    let config = try KBeaconConfiguration(
      deviceJSON: json(
        #"{"name":"n","advObj":[{"slot":2,"type":4,"url":"https://a.b"}],"trObj":[{"trIdx":0,"trType":1,"trPara":5}],"srObj":[{"srType":2,"lgItvl":300}]}"#
      ),
      generation: .pro)
    let flat = config.flattened()
    #expect(
      flat.map(\.path) == [
        "name", "advObj[2].slot", "advObj[2].type", "advObj[2].url", "trObj[0].trIdx", "trObj[0].trType",
        "trObj[0].trPara",
        "srObj[2].srType", "srObj[2].lgItvl",
      ])
    #expect(try KBeaconConfiguration(flattened: flat, generation: .pro) == config)
    // a partial path set gets its identity key first
    let partial = try KBeaconConfiguration(flattened: [("advObj[1].txPwr", .int(-4))], generation: .pro)
    #expect(partial.slots.first?.fields.description == #"{"slot":1,"txPwr":-4}"#)
    #expect(ConfigPath("advObj[x].a") == nil && ConfigPath("foo[1].a") == nil && ConfigPath("a.b") == nil)
  }

  @Test func problemsPointAtPathsAndUseEntryTypes() throws {
    let config = try KBeaconConfiguration(
      deviceJSON: json(
        #"{"name":"0123456789012345678","advObj":[{"slot":0,"type":5,"majorID":70000}],"trObj":[{"trIdx":0,"trType":1,"trPara":1}]}"#
      ),
      generation: .pro)
    let problems = config.problems()
    #expect(problems.count == 3)
    #expect(problems.contains { $0.hasPrefix("advObj[0].majorID") })
    #expect(problems.contains { $0.hasPrefix("trObj[0].trPara") })
  }

  @Test func mergeFoldsASecondReadEntryByEntry() throws {
    var first = try KBeaconConfiguration(
      deviceJSON: json(#"{"name":"a","advObj":[{"slot":0,"type":5,"txPwr":0}]}"#), generation: .pro)
    let second = try KBeaconConfiguration(
      deviceJSON: json(#"{"advObj":[{"slot":0,"txPwr":-4},{"slot":1,"type":0}],"trObj":[{"trIdx":0,"trType":0}]}"#),
      generation: .pro)
    first.merge(second)
    #expect(first.slot(0)?.fields.description == #"{"slot":0,"type":5,"txPwr":-4}"#)
    #expect(first.slots.count == 2 && first.triggers.count == 1 && first.common[CommonKey.name] == "a")
  }
}
