import Foundation
import GRDB
import Testing

@testable import Fleet

/// What a run was made from, in the SQLite journal (migration v5), so a run id reused with other input is refused.
@Suite(.timeLimit(.minutes(1))) struct RunRecipeTests {
  static let profile = RunRecipe("profile", content: Array(#"{"version": 1}"#.utf8))
  static let other = RunRecipe("profile", content: Array(#"{"version": 1, "desired": {}}"#.utf8))

  @Test func aRecipeIsTheKindOfInputAndTheSHA256OfItsContent() {
    #expect(
      RunRecipe("package", content: Array("abc".utf8)).text
        == "package sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(Self.profile != Self.other)
    #expect(throws: Never.self) {
      try RunRecipe.check(run: "r", location: "j", recorded: nil, given: Self.profile.text)
    }
    #expect(throws: Never.self) {
      try RunRecipe.check(run: "r", location: "j", recorded: Self.profile.text, given: nil)
    }
    let error = #expect(throws: RunRecipeMismatch.self) {
      try RunRecipe.check(run: "site1", location: "j", recorded: Self.profile.text, given: Self.other.text)
    }
    let message = error?.description ?? ""
    #expect(message.hasPrefix("run site1 in j was made from another profile (profile sha256:"))
    #expect(message.contains("--run site1-2"))
  }

  @Test func aRunKeepsItsRecipeAndARunWithAnotherIsRefusedUnderItsId() async throws {
    let journal = try Journal(path: nil)
    let run = try await journal.createRun(
      kind: "apply", source: "a.json", adapter: "sim", addresses: ["C2:00:00:00:00:01"],
      recipe: Self.profile.text)
    #expect(try await journal.run(run)?.recipe == Self.profile.text)
    await #expect(throws: RunRecipeMismatch.self) {
      _ = try await journal.createRun(
        kind: "apply", source: "b.json", adapter: "sim", addresses: ["C2:00:00:00:00:02"], id: run,
        recipe: Self.other.text)
    }
    #expect(try await journal.devices(run: run).map(\.address) == ["C2:00:00:00:00:01"])
  }

  /// A journal made before v5 opens; its runs have no recipe, so nothing refuses them.
  @Test func aJournalMadeBeforeRecipesOpensWithRunsWithoutOne() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-v4-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let path = folder + "/journal.sqlite"
    do {
      let old = try DatabaseQueue(path: path)
      try Journal.migrator.migrate(old, upTo: "v4")
      try await old.write { db in
        try db.execute(
          sql:
            "INSERT INTO run (id, kind, source, adapter, startedAt, status) VALUES ('r1', 'apply', 'a.json', 'sim', ?, 'running')",
          arguments: [Date()])
      }
    }
    let journal = try Journal(path: path)
    let run = try #require(try await journal.run("r1"))
    #expect(run.recipe == nil && run.kind == "apply")
    #expect(throws: Never.self) {
      try RunRecipe.check(run: "r1", location: path, recorded: run.recipe, given: Self.profile.text)
    }
  }
}
