import ArgumentParser
import BeaconCore
import BlueZ

/// Turns the live BlueZ layer's errors (no Bluetooth, no permission, adapter down, a controller refusing a
/// command, a failed link) into the one-line `CLIFailure` every command prints; other errors pass through.
func liveFailure(_ error: any Error) -> any Error {
  switch error {
  case let e as BlueZError: CLIFailure(e.description)
  case let e as ControllerCommandError: CLIFailure(e.description)
  case let e as LinkError: CLIFailure(e.description)
  case let e as NoAdapterError: CLIFailure(e.description)
  default: error
  }
}

/// `--scan-backend auto|mgmt|hci`.
extension ScanBackend: ExpressibleByArgument {}
