import ArgumentParser
import NordicDFU

/// `beacon-provision dfu inspect FILE.zip`: shows every image and runs every check that needs no device
/// (nordic-dfu.md §1.4). Exit status 1 when the package would be refused.
struct DFUInspect: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "inspect",
    abstract: "Show a DFU package's images and run every check that needs no device.",
    discussion: "Checks whose device facts are not given (--hw-version, --softdevice-id, …) are reported as skipped.")

  @Argument(help: ArgumentHelp("The DFU package (.zip made by nrfutil pkg generate).", valueName: "package"))
  var package: String

  @OptionGroup var device: DFUDeviceOptions

  @Flag(help: "Print JSON.")
  var json = false

  func run() throws {
    let report = try Self.report(path: package, expectations: try device.expectations())
    print(json ? try JSONOutput.string(report) : report.text)
    if !report.valid { throw CLIFailure("\(package) would be refused: \(report.checks.filter { $0.outcome == .failed }.map { "image #\($0.image) \($0.name): \($0.detail)" }.joined(separator: "; "))") }
  }

  static func report(path: String, expectations: DeviceExpectations) throws -> DFUPackageReport {
    let package = try DFUPackage.load(path: path)
    return DFUPackageReport(path: path, package: package, checks: PackageValidator(expectations: expectations).checks(package))
  }
}
