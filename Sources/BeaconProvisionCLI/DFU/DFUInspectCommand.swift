import ArgumentParser
import NordicDFU

/// `beacon-provision dfu inspect FILE.zip`: shows every image and runs every check that needs no device
/// (docs/protocols/nordic-dfu.md §1.4). Exit status 1 when the package would be refused.
struct DFUInspectCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "inspect",
    abstract: "Show a DFU package's images and run every check that needs no device.",
    discussion: ExitStatus.discussion(
      "Checks whose device facts are not given (--hw-version, --softdevice-id, …) are reported as skipped.",
      codes: "0 every check passed or was skipped; 1 the package would be refused, or cannot be read"))

  @Argument(help: ArgumentHelp("The DFU package (.zip made by nrfutil pkg generate).", valueName: "package"))
  var package: String

  @OptionGroup var device: DFUDeviceOptions

  @Flag(help: "Print JSON.")
  var json = false

  func run() throws {
    let (text, refusal) = try output()
    print(text)
    if let refusal { throw CLIFailure(refusal) }
  }

  /// What `run` prints, and the refusal it then exits with (nil when the package is OK). A package that
  /// cannot even be read is a refusal like a failed check: with --json it is `"valid": false` + `reason`.
  func output() throws -> (text: String, refusal: String?) {
    let expectations = try device.expectations()
    let report: DFUPackageReport
    do {
      report = try Self.report(path: package, expectations: expectations)
    } catch let failure as PackageRefusal {
      let refused = DFUPackageReport(path: package, refusal: failure.reason)
      return (
        json ? try JSONOutput.string(refused) : "DFU package \(package): REFUSED: \(failure.reason)",
        "\(package) would be refused: \(failure.reason)"
      )
    }
    let failed = report.checks.filter { $0.outcome == .failed }.map { "image #\($0.image) \($0.name): \($0.detail)" }
    return (
      json ? try JSONOutput.string(report) : report.text,
      report.valid ? nil : "\(package) would be refused: \(failed.joined(separator: "; "))"
    )
  }

  static func report(path: String, expectations: DeviceExpectations) throws -> DFUPackageReport {
    let package = try DFUPackage.read(path: path)
    return DFUPackageReport(
      path: path, package: package, checks: PackageValidator(expectations: expectations).checks(package))
  }
}

/// A package `dfu inspect` cannot read at all, and why.
struct PackageRefusal: Error, Equatable {
  var reason: String
}
