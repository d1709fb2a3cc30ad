/// `plan` and `apply` take `-v`/`--log-level` through their shared `ProvisionOptions`; `dfu update` takes them
/// itself and logs its campaign's events as `apply -v` does (it said "Unknown option '-v'").
extension PlanCommand: LoggingCommand {
  var logging: LoggingOptions { options.logging }
}

extension ApplyCommand: LoggingCommand {
  var logging: LoggingOptions { options.logging }
}

extension DFUUpdateCommand: LoggingCommand {}
