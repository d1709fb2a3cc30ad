import Foundation
import JSON
import KBeacon
import Testing

@testable import Profiles

/// The committed schema and example profiles are part of the product: they must match the decoder.
@Suite(.timeLimit(.minutes(1))) struct SchemaAndExamplesTests {
  static let profilesFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("profiles")

  @Test func committedSchemaIsWhatTheDecoderTablesGenerate() throws {
    let committed = try String(
      contentsOf: Self.profilesFolder.appendingPathComponent("profile.schema.json"), encoding: .utf8)
    #expect(
      committed == ProfileSchema.document(),
      "regenerate: beacon-provision profile schema > profiles/profile.schema.json")
  }

  @Test func schemaNamesExactlyTheKeysTheDecoderAccepts() throws {
    let schema = try JSONParser.parseWithPositions(Array(ProfileSchema.document().utf8))
    func keys(_ node: SourceJSON?) -> [String] {
      guard case .object(let members)? = node?["properties"]?.kind else { return [] }
      return members.map(\.key)
    }
    #expect(keys(schema) == ProfileKeys.root)
    #expect(keys(schema["properties"]?["select"]) == ProfileKeys.select)
    #expect(keys(schema["properties"]?["auth"]) == ProfileKeys.auth)
    #expect(keys(schema["properties"]?["desired"]) == ProfileKeys.desired)
    #expect(keys(schema["properties"]?["commands"]?["items"]) == ProfileKeys.command)
    let desired = schema["properties"]?["desired"]?["properties"]
    #expect(keys(desired?["triggers"]?["items"]) == ProfileFields.trigger.map(\.key))
    #expect(keys(desired?["sensors"]?["items"]) == ProfileFields.sensor.map(\.key))
    // The major's range in the schema is the decoder's.
    guard case .array(let variants)? = desired?["slots"]?["items"]?["allOf"]?.kind else {
      Issue.record("no slot variants")
      return
    }
    let ibeacon = variants.first { $0["if"]?["properties"]?["type"]?["const"]?.kind == .string("ibeacon") }
    let major = ibeacon?["then"]?["properties"]?["major"]
    guard case .array(let anyOf)? = major?["anyOf"]?.kind else {
      Issue.record("major is not templatable")
      return
    }
    #expect(anyOf.first?["maximum"]?.kind == .number(65535, text: "65535"))
  }

  @Test(arguments: ["retail-ibeacon.json", "eddystone-url-tlm.json", "sensor-fleet.json"])
  func exampleProfilesAreValid(_ name: String) throws {
    let file = Self.profilesFolder.appendingPathComponent(name).path
    let loaded = try LoadedProfile.load(
      file: file, read: { Array(try Data(contentsOf: URL(fileURLWithPath: $0))) }, urlCheck: testURLCheck)
    #expect(!loaded.profile.desired.slots.isEmpty)
    if name == "retail-ibeacon.json" {
      #expect(loaded.inventory?.rows.count == 7)
      let v = loaded.variables(for: "dd:34:02:06:d1:03")
      #expect(v.index == 2 && v.inventory["aisle"] == "aisle-03-dairy")
    }
  }
}
