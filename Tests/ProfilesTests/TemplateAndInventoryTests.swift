import Testing

@testable import Profiles

@Suite(.timeLimit(.minutes(1))) struct TemplateAndInventoryTests {
  let vars = TemplateVariables(address: "dd:34:02:06:d0:6c", index: 4, inventory: ["room": "A-12", "floor": "3"])

  @Test func fillsBuiltInsAndInventoryVariables() {
    #expect(Template("{{room}}/{{floor}}").render(vars) == .success("A-12/3"))
    #expect(Template("{{address}}").render(vars) == .success("DD:34:02:06:D0:6C"))
    #expect(Template("id-{{address_hex}}").render(vars) == .success("id-DD340206D06C"))
    #expect(Template("{{index}}").render(vars) == .success("4"))
    #expect(Template("{{ index + 100 }}").render(vars) == .success("104"))
    #expect(Template("{{index-1}}").render(vars) == .success("3"))
  }

  @Test func explainsWhatIsMissing() {
    #expect(
      Template("{{aisle}}").render(vars)
        == .failure(
          TemplateError("no variable \"aisle\" for this device (known: address, address_hex, floor, index, room)")))
    let noIndex = TemplateVariables(address: "DD:34:02:06:D0:6C", index: nil)
    #expect(
      Template("{{index}}").render(noIndex)
        == .failure(TemplateError("{{index}} needs an inventory or select.addresses listing this device")))
    #expect(Template("{{room").syntaxError == "unclosed \"{{\" in \"{{room\"")
    #expect(Template("{{room+1}}").syntaxError == "\"{{room+1}}\": only {{index}} takes an offset")
    #expect(Template("{{}}").syntaxError == "\"{{}}\" is not a variable name")
  }

  @Test func readsCSVWithQuotesTagsAndCRLF() throws {
    let csv =
      "address,room,tags\r\ndd:34:02:06:d0:6c,\"A, 12\",aisle;front\r\nDD:34:02:06:D0:6D,\"say \"\"hi\"\"\",\r\n"
    let inventory = try Inventory.parse(Array(csv.utf8), file: "inv.csv")
    #expect(inventory.rows.count == 2)
    let first = try #require(inventory.row(for: "DD:34:02:06:D0:6C"))
    #expect(first.index == 0 && first.variables == ["room": "A, 12"] && first.tags == ["aisle", "front"])
    #expect(inventory.row(for: "dd:34:02:06:d0:6d")?.variables["room"] == "say \"hi\"")
    #expect(inventory.row(for: "DD:34:02:06:D0:6D")?.index == 1)
  }

  @Test func reportsEveryBadInventoryRow() {
    let csv = "address,room\nDD:34:02:06:D0:6C,A\nnope,B\nDD:34:02:06:D0:6C,C\nDD:34:02:06:D0:6E\n"
    do {
      _ = try Inventory.parse(Array(csv.utf8), file: "inv.csv")
      Issue.record("accepted")
    } catch {
      #expect(
        error.all.map(\.description) == [
          #"inv.csv:3:1: $[1].address: "NOPE" is not a Bluetooth address (allowed: AA:BB:CC:DD:EE:FF)"#,
          #"inv.csv:4:1: $[2]: address DD:34:02:06:D0:6C is listed twice (lines 2 and 4)"#,
          #"inv.csv:5:1: $[3]: 1 fields where the header has 2"#,
        ])
    }
  }

  /// A duplicate is named by the lines an operator sees in an editor (the CSV's header is line 1), not by
  /// data-row indexes counted from 0.
  @Test func aDuplicateAddressNamesTheFileLinesOfBothEntries() {
    let json =
      "[\n {\"address\": \"DD:34:02:06:D0:6C\"},\n {\"address\": \"DD:34:02:06:D0:6D\"},\n {\"address\": \"dd:34:02:06:d0:6c\"}\n]"
    do {
      _ = try Inventory.parse(Array(json.utf8), file: "inv.json")
      Issue.record("accepted")
    } catch {
      #expect(
        error.all.map(\.description) == [
          #"inv.json:4:2: $[2]: address DD:34:02:06:D0:6C is listed twice (lines 2 and 4)"#
        ])
      #expect(error.description.hasSuffix("1 error in the inventory; nothing was sent to any device"))
    }
  }

  @Test func readsJSONInBothShapes() throws {
    let array = #"[{"address": "DD:34:02:06:D0:6C", "room": "A", "minor": 7, "tags": ["x"]}]"#
    let a = try Inventory.parse(Array(array.utf8), file: "inv.json")
    #expect(a.rows.first?.variables == ["room": "A", "minor": "7"] && a.rows.first?.tags == ["x"])
    let object = #"{"DD:34:02:06:D0:6C": {"room": "B"}, "DD:34:02:06:D0:6D": {"room": "C"}}"#
    let o = try Inventory.parse(Array(object.utf8), file: "inv.json")
    #expect(o.rows.map(\.variables["room"]) == ["B", "C"] && o.rows.map(\.index) == [0, 1])
  }

  @Test func globAndSelection() {
    #expect(Glob("KBPro_*").matches("KBPro_214810"))
    #expect(!Glob("KBPro_*").matches("KB_214810"))
    #expect(Glob("K?Pro*").matches("KBPro"))
    let s = Selection(name: "KBPro_*", minimumRSSI: -80, tags: ["aisle"])
    #expect(s.rejection(of: .init(address: "DD:34:02:06:D0:6C", name: "KBPro_1", rssi: -70, tags: ["aisle"])) == nil)
    #expect(
      s.rejection(of: .init(address: "DD:34:02:06:D0:6C", name: "KBPro_1", rssi: -90, tags: ["aisle"]))
        == "RSSI -90 dBm below -80 dBm")
    #expect(
      s.rejection(of: .init(address: "DD:34:02:06:D0:6C", name: "Other", rssi: -70, tags: ["aisle"]))
        == "name 'Other' does not match 'KBPro_*'")
    #expect(
      s.rejection(of: .init(address: "DD:34:02:06:D0:6C", name: "KBPro_1", rssi: -70)) == "missing inventory tag aisle")
    let f = Selection(models: ["KBPro*"], firmware: FirmwareRange(">=5.20, <6"))
    #expect(f.rejection(model: "KBPro-K6", firmware: FirmwareVersion("V5.22")) == nil)
    #expect(f.rejection(model: "KBPro-K6", firmware: FirmwareVersion("V5.9")) == "firmware 5.9 outside >=5.20, <6")
    #expect(f.rejection(model: "iB001", firmware: FirmwareVersion("5.22")) == "model iB001 not in select.models")
  }
}
