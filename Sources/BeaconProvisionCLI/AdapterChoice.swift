import ArgumentParser
import BlueZ

/// Which radio a command uses: a BlueZ adapter by name (`hci0`), the built-in simulated fleet (`sim`), or
/// a simulated fleet described in a file (`sim:FILE`).
public enum AdapterChoice: Equatable, Sendable, ExpressibleByArgument, CustomStringConvertible {
  case live(String)
  case simulated(fleetFile: String?)

  public init?(argument: String) {
    if argument == "sim" {
      self = .simulated(fleetFile: nil)
    } else if argument.hasPrefix("sim:") {
      let file = String(argument.dropFirst(4))
      guard !file.isEmpty else { return nil }
      self = .simulated(fleetFile: file)
    } else if argument.hasPrefix("hci"), Int(argument.dropFirst(3)) != nil {
      self = .live(argument)
    } else {
      return nil
    }
  }

  public var description: String {
    switch self {
    case .live(let name): name
    case .simulated(nil): "sim"
    case .simulated(let file?): "sim:\(file)"
    }
  }
}

/// `--adapter`, shared by every command that uses the radio.
public struct AdapterOptions: ParsableArguments, Sendable {
  @Option(
    help: ArgumentHelp(
      "hci0, hci1, … for a BlueZ adapter; sim for the built-in simulated fleet; sim:FILE for a fleet file.",
      valueName: "adapter"))
  public var adapter: AdapterChoice?

  public init() {}

  /// The tail of a printed command that finishes or resumes a run (`--resume RUN`): this adapter and
  /// `stateDir`, each only when given, so the command reaches the same devices and journal.
  func finishTail(stateDir: String?) -> [String] {
    (adapter.map { ["--adapter", $0.description] } ?? []) + (stateDir.map { ["--state-dir", $0] } ?? [])
  }
}

/// `--scan-backend`, shared by the commands that scan a live adapter (`scan`, `plan`, `apply`, `dfu update`).
public struct ScanBackendOption: ParsableArguments, Sendable {
  @Option(
    name: .customLong("scan-backend"),
    help: ArgumentHelp(
      "Live adapters: mgmt (kernel discovery, works while bluetoothd runs; always active), hci (raw HCI LE scan, "
        + "for adapters no other program scans on), or auto (mgmt when available).", valueName: "backend"))
  public var value: ScanBackend = .auto

  public init() {}
}
