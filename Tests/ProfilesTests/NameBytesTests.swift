import JSON
import KBeacon
import Testing

@testable import Profiles

/// Device names as bytes: a KBeacon stores its name as at most 18 bytes of UTF-8 (docs/protocols/kbeacon.md §6.3), so
/// the limit counts bytes, not characters (18 emoji were accepted, "updated, verified", and cut by the
/// device); control characters (NUL, ESC, DEL, C1) are refused wherever the name comes from; a profile or
/// inventory that is not UTF-8 is refused at its place instead of turning into U+FFFD.
@Suite("Names and UTF-8", .timeLimit(.minutes(1))) struct NameBytesTests {
  static func name(_ jsonString: String) -> [String] {
    diagnostics(#"{"version": 1, "desired": {"name": "\#(jsonString)"}}"#)
  }

  @Test func theNameLimitCountsUTF8Bytes() {
    #expect(Self.name("KBPro_ABCDEFGHIJKL").isEmpty)  // 18 ASCII bytes
    #expect(Self.name("Gänseblümchen-123").count == 1)  // 17 characters, but ä and ü take 2 bytes each: 19
    let emoji = String(repeating: "🐝", count: 18)
    let problems = Self.name(emoji)
    #expect(problems.count == 1)
    #expect(problems.first?.contains("$.desired.name: \"\(emoji)\" is 72 bytes long in UTF-8") == true, "\(problems)")
    #expect(Self.name("🐝🐝🐝🐝").isEmpty)  // 16 bytes
  }

  @Test func controlCharactersInANameAreRefused() {
    let problems =
      Self.name(#"a\u0000b"#) + Self.name(#"\u001b]0;pwned\u0007"#) + Self.name(#"x\u007f"#) + Self.name(#"x\u009b"#)
    #expect(
      problems == [
        #"p.json:1:36: $.desired.name: "a\u{00}b" contains the control character U+0000 (allowed: UTF-8 text of at most 18 bytes — 18 ASCII characters, fewer accented letters or emoji — without control characters)"#,
        #"p.json:1:36: $.desired.name: "\u{1B}]0;pwned\u{07}" contains the control character U+001B (allowed: UTF-8 text of at most 18 bytes — 18 ASCII characters, fewer accented letters or emoji — without control characters)"#,
        #"p.json:1:36: $.desired.name: "x\u{7F}" contains the control character U+007F (allowed: UTF-8 text of at most 18 bytes — 18 ASCII characters, fewer accented letters or emoji — without control characters)"#,
        #"p.json:1:36: $.desired.name: "x\u{9B}" contains the control character U+009B (allowed: UTF-8 text of at most 18 bytes — 18 ASCII characters, fewer accented letters or emoji — without control characters)"#,
      ])
  }

  /// A templated name filled in from an inventory value is checked the same way, per device.
  @Test func aTemplatedNameFromTheInventoryIsCheckedPerDevice() throws {
    let text = #"{"version": 1, "inventory": "i.csv", "desired": {"name": "{{room}}"}}"#
    let csv =
      "address,room\nDD:34:02:06:D1:01,\u{1B}[2J\nDD:34:02:06:D1:02,\(String(repeating: "é", count: 10))\nDD:34:02:06:D1:03,ok\n"
    let loaded = try LoadedProfile.load(
      file: "p.json", read: { $0.hasSuffix(".csv") ? Array(csv.utf8) : Array(text.utf8) }, urlCheck: testURLCheck)
    let problems = TemplatePreflight(profile: loaded, resolver: DesiredResolver(urlCheck: testURLCheck))
      .problems(addresses: ["DD:34:02:06:D1:01", "DD:34:02:06:D1:02", "DD:34:02:06:D1:03"])
    #expect(problems.count == 2, "\(problems)")
    #expect(
      problems.first?.contains(
        #"DD:34:02:06:D1:01 (i.csv line 2): "\u{1B}[2J" contains the control character U+001B"#) == true,
      "\(problems)")
    #expect(
      problems.last?.contains(
        "DD:34:02:06:D1:02 (i.csv line 3): \"\(String(repeating: "é", count: 10))\" is 20 bytes long in UTF-8")
        == true, "\(problems)")
  }

  @Test func aProfileThatIsNotUTF8IsRefusedAtItsPlaceAndPath() {
    var bytes = Array(#"{"version": 1, "desired": {"slots": [], "name": "ab"#.utf8)
    bytes += [0xFF, 0x41]
    bytes += Array("\"}}".utf8)
    do {
      _ = try ProfileDecoder.decode(bytes, file: "p.json", urlCheck: testURLCheck)
      Issue.record("accepted")
    } catch {
      #expect(
        error.all.map(\.description) == [
          "p.json:1:52: $: not valid JSON: invalid UTF-8 (byte 0xFF) in the string at $.desired.name; save the file as UTF-8"
        ])
    }
  }

  @Test func anInventoryThatIsNotUTF8IsRefusedAtItsLine() {
    var bytes = Array("address,room\nDD:34:02:06:D1:01,K\u{FC}che\n".utf8)
    bytes += Array("DD:34:02:06:D1:02,K".utf8) + [0xFC] + Array("che\n".utf8)  // Latin-1 ü
    do {
      _ = try Inventory.parse(bytes, file: "inv.csv")
      Issue.record("accepted")
    } catch {
      #expect(error.all.map(\.description) == ["inv.csv:3:20: $: invalid UTF-8 (byte 0xFC); save the file as UTF-8"])
    }
  }

  @Test func deviceAnswersStayLenient() throws {
    // Wire JSON (a device's answer) keeps decoding broken bytes as U+FFFD: the device must stay readable.
    let value = try JSONParser.parse([0x7B, 0x22, 0x6E, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D])
    #expect(value == .object(["n": .string("\u{FFFD}")]))
  }
}
