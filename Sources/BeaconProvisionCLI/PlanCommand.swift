import ArgumentParser
import CampaignPipeline
import Fleet

/// `beacon-provision plan PROFILE`: what `apply` would change, per device, touching nothing.
struct PlanCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "plan",
    abstract: "Show what applying a profile would change on each device (reads only).",
    discussion: """
      Validates the profile (every problem at once), scans, connects to each selected device, reads its \
      configuration back and diffs it with the profile. Nothing is written. A profile with a `commands` section \
      (text-stream devices: AT commands over the Nordic UART Service, Tertium readers) sends each item's query \
      and lists the items whose answer differs, with the set that apply would send.

      Exit status: 0 planned (whether or not something would change), 1 error or a device failed; with \
      --detailed-exitcode, 0 nothing to change and 2 when something would change (as terraform plan \
      -detailed-exitcode); \(ExitStatus.usage).

      Example (the example profile names the variable BEACON_PASSWORD; the simulated fleet has the factory \
      password):
        BEACON_PASSWORD=0000000000000000 beacon-provision plan \\
            profiles/retail-ibeacon.json --adapter sim
      """)

  @OptionGroup var options: ProvisionOptions

  @Flag(help: "Exit 2 when changes are planned, 0 when none, 1 on error.")
  var detailedExitcode = false

  @Flag(help: "Also list the devices the scan heard but the profile does not select, and why (--json always does).")
  var explain = false

  func run() async throws {
    let result = try await options.withGATTCache {
      try await ApplyInvocation(options: options, dryRun: true, resume: nil).run()
    }
    print(options.json ? try CampaignReport.json(result) : CampaignReport.table(result, explain: explain))
    if result.summary.failed { throw ExitCode(1) }
    if detailedExitcode, result.summary.changedSomething { throw ExitCode(2) }
  }
}
