import Foundation
import Profiles
import TestServers
import Testing

/// The published profile schema (profiles/profile.schema.json, what `profile schema` prints) read by a validator
/// we did not write: Python's jsonschema (Debian's python3-jsonschema), Draft 2020-12. It accepts every example
/// profile, and refuses each of a set of mistakes that the profile check refuses too — so an editor that uses
/// the schema flags what `profile check` would (a UUID short of its groups once passed the schema).
@Suite(.timeLimit(.minutes(2))) struct ProfileSchemaPeerTests {
  static let schema = ExampleProfilesTests.folder + "/profile.schema.json"

  /// Each document's verdict, in order: nil when valid, else the validator's first message.
  static func validate(_ documents: [String]) async throws -> [String?] {
    let script = """
      import json, sys
      from jsonschema import Draft202012Validator
      validator = Draft202012Validator(json.load(open(sys.argv[1])))
      for line in sys.stdin:
          errors = sorted(validator.iter_errors(json.loads(line)), key=lambda e: list(e.path))
          print(json.dumps(errors[0].message if errors else None))
      """
    // One document per line: each re-written without its line breaks.
    var lines: [String] = []
    for document in documents {
      let value = try JSONSerialization.jsonObject(with: Data(document.utf8))
      lines.append(String(decoding: try JSONSerialization.data(withJSONObject: value), as: UTF8.self))
    }
    let input = lines.joined(separator: "\n") + "\n"
    let run = try await ChildProcess.run("/usr/bin/python3", ["-c", script, schema], input: .text(input))
    try #require(run.status == 0, "\(run.errors)")
    return run.output.split(separator: "\n").map { line in
      line == "null"
        ? nil : (try? JSONSerialization.jsonObject(with: Data(line.utf8), options: .fragmentsAllowed)) as? String
    }
  }

  @Test func everyExampleProfileIsValid() async throws {
    let examples = ExampleProfilesTests.examples
    try #require(examples.count >= 3)
    let texts = try examples.map { try String(contentsOfFile: $0, encoding: .utf8) }
    #expect(try await Self.validate(texts) == Array(repeating: nil, count: texts.count), "\(examples)")
  }

  @Test func mistakesTheProfileCheckRefusesTheSchemaRefusesToo() async throws {
    let slot = #""slots": [{"slot": 0, "type": "ibeacon", "major": 1, "minor": 2, "uuid": "#
    let mistakes = [
      #"{"version": 1, "desired": {\#(slot)"E2C56DB5"}]}}"#,
      #"{"version": 1, "desired": {\#(slot)"E2C56DB5-DFFB-48D2-B060-D0F5A71096EZ"}]}}"#,
      #"{"version": 1, "desired": {"slots": [{"slot": 0, "type": "eddystone-uid", "namespace": "0x1234", "instance": "0x000000000001"}]}}"#,
      #"{"version": 1, "auth": {"passwordEnv": "S3cret Passw0rd!!"}, "desired": {}}"#,
      #"{"version": 1, "desired": {"txPower": 42}}"#,
      #"{"version": 1, "desired": {"nmae": "x"}}"#,
    ]
    for text in mistakes {
      #expect(throws: ProfileDiagnostics.self, "the profile check passed \(text)") {
        _ = try ProfileDecoder.decode(Array(text.utf8), file: "p.json", urlCheck: { _ in nil })
      }
    }
    let verdicts = try await Self.validate(mistakes)
    #expect(verdicts.count == mistakes.count)
    for (text, verdict) in zip(mistakes, verdicts) { #expect(verdict != nil, "the schema passed \(text)") }
  }
}
