import ArgumentParser
import CampaignPipeline
import Fleet

/// `beacon-provision apply PROFILE`: make the devices so.
struct ApplyCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "apply",
    abstract: "Apply a profile: write only what differs on each device, then verify by reading back.",
    discussion: """
      Per device: connect, authenticate, read back, diff, write ONE cfg message with only the changed keys, \
      read back and compare. A compliant device gets no write at all. With a `commands` profile (text-stream \
      devices), each item's query is sent, the set of each item whose answer differs, then the query again to \
      verify. Every step goes to the journal in the \
      state directory; Ctrl-C lets links in flight finish and leaves the rest pending for --resume.

      Exit status: 0 every selected device compliant or updated; 1 a device failed or the input is invalid; \
      3 interrupted (resume with --resume RUN); 130 a second Ctrl-C (links in flight abandoned); \
      \(ExitStatus.usage).

      Examples:
        BEACON_PASSWORD=0000000000000000 beacon-provision apply \\
            profiles/retail-ibeacon.json --adapter sim
        beacon-provision apply profiles/at-uart-devices.json --adapter sim
        BEACON_PASSWORD=… beacon-provision apply site.json --adapter hci0 \\
            --parallel 3
        beacon-provision apply site.json --adapter hci0 \\
            --resume 20261122-101500-3fa2
      """)

  @OptionGroup var options: ProvisionOptions

  @Option(
    help: ArgumentHelp(
      "Finish an interrupted run: its id (printed when the run starts and at its end), or last for the newest apply run.",
      valueName: "run|last"))
  var resume: String?

  func run() async throws {
    let result = try await options.withGATTCache {
      try await ApplyInvocation(options: options, dryRun: false, resume: resume).run()
    }
    print(options.json ? try CampaignReport.json(result) : CampaignReport.table(result))
    if result.summary.interrupted { throw ExitCode(3) }
    if result.summary.failed { throw ExitCode(1) }
  }
}
