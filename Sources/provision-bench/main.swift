// provision-bench: release-mode benchmarks. `swift run -c release provision-bench [name …]`.
// Each benchmark prints its figures; goals are printed next to them, never asserted.

import Glibc

let benchmarks: [String: () async throws -> Void] = [
  "apply": ApplyBenchmark.run,
  "apply-scaling": ApplyScalingBenchmark.run,
  "audit": AuditBenchmark.run,
  "audit-connect-scaling": AuditConnectScalingBenchmark.run,
  "decode": { DecodeBenchmark.run() },
  "dfu-throughput": DFUThroughputBenchmark.run,
  "firmware-fetch": FirmwareFetchBenchmark.run,
  "gatt-round-trips": GATTRoundTrips.run,
  "http-download": HTTPDownloadBenchmark.run,
  "kbeacon-session": KBeaconSessionBench.run,
  "monitor": MonitorBenchmark.run,
  "reconcile": ReconcileBenchmark.run,
]

let requested = Array(CommandLine.arguments.dropFirst())
let names = requested.isEmpty ? benchmarks.keys.sorted() : requested
for name in names {
  guard let run = benchmarks[name] else {
    print("unknown benchmark '\(name)'; available: \(benchmarks.keys.sorted().joined(separator: ", "))")
    exit(2)
  }
  print("== \(name)")
  try await run()
}
