import ArgumentParser
import Profiles

/// `beacon-provision profile schema`.
struct ProfileSchemaCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "schema",
    abstract: "Print the JSON Schema of profile version 1.",
    discussion: ExitStatus.paragraph("0 printed"))
  func run() { print(ProfileSchema.document(), terminator: "") }
}
