import Foundation
import Profiles
import TestServers
import Testing

/// The published profile schema (profiles/profile.schema.json, what `profile schema` prints) read by a validator
/// we did not write: Python's jsonschema (Debian's python3-jsonschema), Draft 2020-12. It accepts every example
/// profile, and refuses each of a set of mistakes at the field the profile check refuses it at — so an editor
/// that uses the schema flags what `profile check` would (a UUID short of its groups once passed the schema).
@Suite(.timeLimit(.minutes(2))) struct ProfileSchemaPeerTests {
  static let schema = ExampleProfilesTests.folder + "/profile.schema.json"

  /// Each document's verdict, in order: empty when valid, else where the validator found each error, as JSON
  /// paths (`$.desired.slots[0].uuid`), the errors inside an `anyOf`/`oneOf` included.
  static func validate(_ documents: [String]) async throws -> [[String]] {
    let script = """
      import json, sys
      from jsonschema import Draft202012Validator
      validator = Draft202012Validator(json.load(open(sys.argv[1])))
      def paths(errors):
          for e in errors:
              yield "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.absolute_path)
              yield from paths(e.context or [])
      for line in sys.stdin:
          print(json.dumps(sorted(set(paths(validator.iter_errors(json.loads(line)))))))
      """
    // One document per line: each re-written without its line breaks.
    var lines: [String] = []
    for document in documents {
      let value = try JSONSerialization.jsonObject(with: Data(document.utf8))
      lines.append(String(decoding: try JSONSerialization.data(withJSONObject: value), as: UTF8.self))
    }
    let run = try await ChildProcess.run(
      "/usr/bin/python3", ["-c", script, schema], input: .text(lines.joined(separator: "\n") + "\n"))
    try #require(run.status == 0, "\(run.errors)")
    return run.output.split(separator: "\n").map { line in
      ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String]) ?? ["unreadable: \(line)"]
    }
  }

  @Test func everyExampleProfileIsValid() async throws {
    let examples = ExampleProfilesTests.examples
    try #require(examples.count >= 3)
    let texts = try examples.map { try String(contentsOfFile: $0, encoding: .utf8) }
    #expect(try await Self.validate(texts) == Array(repeating: [], count: texts.count), "\(examples)")
  }

  /// Each mistake, and the field both the profile check and the schema refuse it at.
  @Test func mistakesTheProfileCheckRefusesTheSchemaRefusesAtTheirField() async throws {
    let slot = #""slots": [{"slot": 0, "type": "ibeacon", "major": 1, "minor": 2, "uuid": "#
    let mistakes: [(text: String, field: String)] = [
      (#"{"version": 1, "desired": {\#(slot)"E2C56DB5"}]}}"#, "$.desired.slots[0].uuid"),
      (#"{"version": 1, "desired": {\#(slot)"E2C56DB5-DFFB-48D2-B060-D0F5A71096EZ"}]}}"#, "$.desired.slots[0].uuid"),
      (
        #"{"version": 1, "desired": {"slots": [{"slot": 0, "type": "eddystone-uid", "namespace": "0x1234", "instance": "0x000000000001"}]}}"#,
        "$.desired.slots[0].namespace"
      ),
      (#"{"version": 1, "auth": {"passwordEnv": "S3cret Passw0rd!!"}, "desired": {}}"#, "$.auth.passwordEnv"),
      (
        #"{"version": 1, "desired": {"slots": [{"slot": 0, "type": "ibeacon", "major": 1, "minor": 2, "txPower": 42}]}}"#,
        "$.desired.slots[0].txPower"
      ),
    ]
    for (text, field) in mistakes {
      do {
        _ = try ProfileDecoder.decode(Array(text.utf8), file: "p.json", urlCheck: { _ in nil })
        Issue.record("the profile check passed \(text)")
      } catch {
        #expect(error.all.map(\.path.description) == [field], "\(error)")
      }
    }
    let verdicts = try await Self.validate(mistakes.map(\.text))
    #expect(verdicts.count == mistakes.count)
    for (mistake, paths) in zip(mistakes, verdicts) {
      #expect(paths.contains(mistake.field), "the schema's errors for \(mistake.text): \(paths)")
    }
  }
}
