import ArgumentParser
import BeaconCore
import Fleet

/// `--no-gatt-cache`, on the commands that connect to KBeacons (`plan`, `apply`, `read`, `ring`, `reset`,
/// `history`, `audit --connect`, `dfu update`'s identity reads) and `plan`/`apply` of a `commands` profile
/// (text-stream devices): by default each device's KBeacon configuration (or text-stream) handles are remembered in the state
/// directory's `gatt-cache.jsonl` (`GATTCacheFile`) and checked against the device's Database Hash — or,
/// without one, handle by handle — on the next visit, which then skips service discovery
/// (`GATTClient.discover(keeping:cache:key:)`). The flag discovers every device's whole table instead and
/// leaves the file alone.
struct GATTCacheOptions: ParsableArguments {
  @Flag(
    name: .customLong("no-gatt-cache"),
    help: "Discover every device's GATT table instead of reusing the handles remembered in the state directory.")
  var disabled = false

  /// The state directory's cache file, or nil with `--no-gatt-cache`. A file that cannot be read or written
  /// is reported on standard error and the run goes on without it.
  func store(stateDirectory: String) -> (any GATTCacheStore)? {
    guard !disabled else { return nil }
    return GATTCacheFile(path: GATTCacheFile.path(stateDirectory: stateDirectory)) { message in
      CLILog.logger("gatt-cache").warning("\(message)")
    }
  }
}
