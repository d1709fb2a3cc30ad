import ArgumentParser
import Profiles

/// `beacon-provision profile schema`.
extension ProfileCommand {
  struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Print the JSON Schema of profile version 1.",
      discussion: ExitStatus.paragraph("0 printed"))
    func run() { print(ProfileSchema.document(), terminator: "") }
  }
}
