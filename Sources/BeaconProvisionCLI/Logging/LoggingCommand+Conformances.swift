/// `plan` and `apply` take `-v`/`--log-level` through their shared `ProvisionOptions`.
extension Plan: LoggingCommand {
  var logging: LoggingOptions { options.logging }
}

extension Apply: LoggingCommand {
  var logging: LoggingOptions { options.logging }
}
