import Foundation
import NordicDFU
import OwnThreads

/// `provision-bench firmware-fetch`: what an operator runs to get a firmware package, timed as processes.
/// Ours: `beacon-provision firmware fetch MODEL --hver V1.0 --catalog URL --firmware-dir DIR` (the release CLI
/// built next to this benchmark; built as `scripts/package` builds it, it is the binary a gateway runs): it reads the catalogue, downloads the package while hashing it, checks the
/// catalogue's size and SHA-256, opens it with libzip and checks its init packet against its image — into an
/// empty cache each round. Theirs: `curl -s -o FILE URL` then `sha256sum FILE` (two processes, their times
/// added), which fetches and hashes the package and checks nothing else. Peak memory is each process's own
/// (`MeasuredCommand`; the larger of curl's and sha256sum's).
///
/// Packages are real DFU zips of a 1 MiB and a 4 MiB application image (4 MiB is the most a package entry
/// may hold: `ArchiveLimits`), served by nginx on loopback at full speed and through a location limited to
/// 10 MB/s (a gateway's internet link). Five rounds per case, order alternating, medians. Printed per case:
/// each side's rate and peak, the ratio; and, from the two sizes on loopback, each side's marginal rate
/// (the extra bytes over the extra time: the per-byte pipeline without the fixed start-up costs). Goal: ours ≥
/// 0.9 of curl + sha256sum, memory not growing with the package beyond the image it checks (printed, never
/// asserted).
enum FirmwareFetchBenchmark {
  static let sizes = [1 << 20, 4 << 20]
  static let rounds = 5
  static let model = "BENCH_SIM"

  struct Side {
    var seconds: [Double] = []
    var peakKiB: [Int] = []
    var medianSeconds: Double { HTTPDownloadBenchmark.median(seconds) }
  }

  static func run() async throws {
    let cli = BenchWorkspace.releaseCLI()
    let dir = try BenchWorkspace.folder("firmware-fetch")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let packages = try await BlockingIO.run { try writeCatalogue(in: dir + "/www") }
    let nginx = try await BenchNginx.start(
      root: dir + "/www", prefix: dir + "/nginx",
      locations: "location /slow/ { alias \(dir)/www/; limit_rate 10m; sendfile_max_chunk 64k; }")
    do {
      try await measure(cli: cli, base: "http://127.0.0.1:\(nginx.port)/", folder: dir, packages: packages)
    } catch {
      await nginx.stop()
      throw error
    }
    await nginx.stop()
  }

  /// One catalogue (`BENCH_SIM.json`) with a release per size — hardware `V1.0`, `V1.1`, … — and its packages:
  /// manifest, init packet (fw_version 514, hw_version 52, the image's hash) and the image, laid out as nrfutil
  /// lays them. Returns each package's hardware version, file name, size and SHA-256 (hex).
  static func writeCatalogue(in www: String) throws -> [(hardware: String, file: String, bytes: Int, digest: String)] {
    try FileManager.default.createDirectory(atPath: www, withIntermediateDirectories: true)
    let random = [UInt8](HTTPDownloadBenchmark.pseudoRandomBytes().prefix(sizes.max()!))
    var packages: [(hardware: String, file: String, bytes: Int, digest: String)] = []
    for (index, size) in sizes.enumerated() {
      let zip = UnsignedApplicationPackage.zip(image: Array(random.prefix(size)), firmwareVersion: 514)
      let file = "BENCH_SIM_\(size >> 20)MiB_V514.zip"
      try Data(zip).write(to: URL(fileURLWithPath: www + "/" + file))
      let digest = SHA256Digest.hash(zip).map { String(format: "%02x", $0) }.joined()
      packages.append((hardware: "V1.\(index)", file: file, bytes: zip.count, digest: digest))
    }
    let releases = packages.map {
      #""\#($0.hardware)": [{"appVersion": "V5.14", "appFileName": "\#($0.file)", "sha256": "\#($0.digest)", "size": \#($0.bytes)}]"#
    }
    try "{\(releases.joined(separator: ", "))}".write(toFile: www + "/\(model).json", atomically: true, encoding: .utf8)
    return packages
  }

  static func measure(
    cli: String, base: String, folder: String, packages: [(hardware: String, file: String, bytes: Int, digest: String)]
  ) async throws {
    print(
      "\(ProcessInfo.processInfo.activeProcessorCount) CPUs; nginx on \(base); MB = 10^6 B; medians of \(rounds) rounds"
    )
    print("case                     curl + sha256sum      ours (firmware fetch)  ours / theirs")
    var loopback: [(bytes: Int, theirs: Side, ours: Side)] = []
    for (link, path) in [("loopback", ""), ("10 MB/s", "slow/")] {
      for package in packages {
        var theirs = Side()
        var ours = Side()
        for round in 1...rounds {
          for turn in round % 2 == 1 ? ["curl", "ours"] : ["ours", "curl"] {
            if turn == "curl" {
              let run = try await curlAndHash(base + path + package.file, folder: folder, digest: package.digest)
              theirs.seconds.append(run.seconds)
              theirs.peakKiB.append(run.peakKiB)
            } else {
              let run = try await fetch(
                cli: cli, base: base + path, hardware: package.hardware, cache: folder + "/cache-\(round)",
                bytes: package.bytes)
              ours.seconds.append(run.seconds)
              ours.peakKiB.append(run.peakKiB)
            }
          }
        }
        let name = "\(package.bytes >> 20) MiB package, \(link)"
        print(
          pad(name, 25), pad(describe(theirs, package.bytes), 22), pad(describe(ours, package.bytes), 23),
          String(format: "%.2f", theirs.medianSeconds / ours.medianSeconds))
        if path.isEmpty { loopback.append((package.bytes, theirs, ours)) }
      }
    }
    if let small = loopback.first, let large = loopback.last, large.bytes > small.bytes {
      let extra = Double(large.bytes - small.bytes)
      let theirRate = extra / (large.theirs.medianSeconds - small.theirs.medianSeconds)
      let ourRate = extra / (large.ours.medianSeconds - small.ours.medianSeconds)
      print(
        "marginal rate on loopback (the extra \(Int(extra) >> 20) MiB): curl + sha256sum \(HTTPDownloadBenchmark.megabytes(theirRate)), ours \(HTTPDownloadBenchmark.megabytes(ourRate)), ratio \(String(format: "%.2f", ourRate / theirRate))"
      )
      let fixed = { (side: Side, bytes: Int, rate: Double) in side.medianSeconds - Double(bytes) / rate }
      print(
        String(
          format: "fixed cost per command (start-up, requests, checks): curl + sha256sum %.0f ms, ours %.0f ms",
          fixed(small.theirs, small.bytes, theirRate) * 1000, fixed(small.ours, small.bytes, ourRate) * 1000))
    }
  }

  /// `curl -s -o FILE URL`, then `sha256sum FILE` (its printed digest checked); the file is deleted after.
  static func curlAndHash(_ url: String, folder: String, digest: String) async throws -> (seconds: Double, peakKiB: Int)
  {
    let file = folder + "/curl.zip"
    let download = try await MeasuredCommand.run(["/usr/bin/curl", "-s", "-o", file, url])
    guard download.status == 0 else { throw BenchError("curl -s -o \(file) \(url) exited \(download.status)") }
    let sums = folder + "/sha256sum.out"
    let hash = try await MeasuredCommand.run(["/usr/bin/sha256sum", file], output: sums)
    let printed = (try? String(contentsOfFile: sums, encoding: .utf8)) ?? ""
    guard hash.status == 0, printed.hasPrefix(digest) else { throw BenchError("sha256sum \(file): \(printed)") }
    try FileManager.default.removeItem(atPath: file)
    return ((download.elapsed + hash.elapsed).seconds, max(download.peakKiB, hash.peakKiB))
  }

  /// `beacon-provision firmware fetch` into the empty cache `cache`; the cached package must hold `bytes` bytes.
  static func fetch(
    cli: String, base: String, hardware: String, cache: String, bytes: Int
  ) async throws -> (seconds: Double, peakKiB: Int) {
    let errors = cache + ".stderr"
    let run = try await MeasuredCommand.run(
      [cli, "firmware", "fetch", model, "--hver", hardware, "--catalog", base, "--firmware-dir", cache], errors: errors)
    guard run.status == 0 else {
      let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
      throw BenchError("beacon-provision firmware fetch exited \(run.status): \(said)")
    }
    let files = try FileManager.default.subpathsOfDirectory(atPath: cache).filter { $0.hasSuffix(".zip") }
    let sizes = try files.map { try FileManager.default.attributesOfItem(atPath: cache + "/" + $0)[.size] as? Int }
    guard sizes == [bytes] else { throw BenchError("the cache \(cache) holds \(files) of sizes \(sizes)") }
    try FileManager.default.removeItem(atPath: cache)
    return (run.elapsed.seconds, run.peakKiB)
  }

  static func describe(_ side: Side, _ bytes: Int) -> String {
    "\(HTTPDownloadBenchmark.megabytes(Double(bytes) / side.medianSeconds)), \(side.peakKiB.max()! / 1024) MiB"
  }
  static func pad(_ s: String, _ width: Int) -> String { DFUThroughputBenchmark.pad(s, width) }
}
