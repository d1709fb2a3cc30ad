import Foundation
import HTTP
import OwnThreads

/// `provision-bench http-download`: download throughput of a 50 MiB file from nginx on loopback,
/// our `CurlHTTPClient` against the `curl` command line on the same file in the same run; goal: ours ≥ 0.95
/// of curl's, median against median (printed, never asserted). Five rounds, each running both, the order
/// alternating so neither always goes first. curl is timed around its process (`curl -s -o FILE URL`, start to
/// exit, as a person running it sees it); ours around `download(_:to:progress:)`, the call the firmware cache
/// makes (its thread, easy handle and file open included). Both write into the same temporary folder, and
/// their files are deleted after each round (a download resumes from what its file holds). Every file is
/// checked for its size; the first round's are compared byte for byte with the served file.
enum HTTPDownloadBenchmark {
  static let size = 50 * 1024 * 1024
  static let rounds = 5

  static func run() async throws {
    let dir = NSTemporaryDirectory() + "bp-bench-http-\(UUID().uuidString.prefix(8))"
    let served = dir + "/www/file.bin"
    let content = try await BlockingIO.run { () throws -> Data in
      try FileManager.default.createDirectory(atPath: dir + "/www", withIntermediateDirectories: true)
      let data = pseudoRandomBytes()
      try data.write(to: URL(fileURLWithPath: served))
      return data
    }
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let nginx = try await BenchNginx.start(root: dir + "/www", prefix: dir + "/nginx")
    do {
      try await measure(url: "http://127.0.0.1:\(nginx.port)/file.bin", folder: dir, content: content)
    } catch {
      await nginx.stop()
      throw error
    }
    await nginx.stop()
  }

  static func measure(url: String, folder: String, content: Data) async throws {
    let (curlFile, ourFile) = (folder + "/curl.out", folder + "/ours.out")
    print(
      "\(size) B (50 MiB) from nginx on \(url), sendfile, 1 worker; \(ProcessInfo.processInfo.activeProcessorCount) CPUs; MB = 10^6 B"
    )
    print("round  first  curl (command line)  ours (CurlHTTPClient)")
    var (curlRates, ourRates): ([Double], [Double]) = ([], [])
    for round in 1...rounds {
      let curlFirst = round % 2 == 1
      var curlTime = Duration.zero
      var ourTime = Duration.zero
      for turn in curlFirst ? ["curl", "ours"] : ["ours", "curl"] {
        if turn == "curl" {
          curlTime = try await curl(url, to: curlFile)
        } else {
          ourTime = try await ours(url, to: ourFile)
        }
      }
      try await check([curlFile, ourFile], against: round == 1 ? content : nil)
      curlRates.append(rate(curlTime))
      ourRates.append(rate(ourTime))
      print(
        pad("\(round)", 6), pad(curlFirst ? "curl" : "ours", 6), pad(megabytes(curlRates.last!), 20),
        megabytes(ourRates.last!))
    }
    let (curlMedian, ourMedian) = (median(curlRates), median(ourRates))
    print(pad("median", 13), pad(megabytes(curlMedian), 20), megabytes(ourMedian))
    let ratio = ourMedian / curlMedian
    print("ours / curl: \(String(format: "%.3f", ratio))  goal ≥ 0.95  \(ratio >= 0.95 ? "met" : "NOT met")")
  }

  /// `curl -s -o path url`, timed from before the process starts to its exit.
  static func curl(_ url: String, to path: String) async throws -> Duration {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    process.arguments = ["-s", "-o", path, url]
    let start = ContinuousClock.now
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
      process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
      do { try process.run() } catch { continuation.resume(throwing: error) }
    }
    let elapsed = ContinuousClock.now - start
    guard status == 0 else { throw BenchError("curl -s -o \(path) \(url) exited \(status)") }
    return elapsed
  }

  /// `CurlHTTPClient().download` with the default configuration, as the firmware cache calls it.
  static func ours(_ url: String, to path: String) async throws -> Duration {
    let start = ContinuousClock.now
    _ = try await CurlHTTPClient().download(HTTPRequest(url: url), to: path, progress: nil)
    return ContinuousClock.now - start
  }

  /// Each file must hold `size` bytes (and, when given, exactly `content`); then it is deleted.
  static func check(_ paths: [String], against content: Data?) async throws {
    try await BlockingIO.run {
      for path in paths {
        let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        guard data.count == size else { throw BenchError("\(path) holds \(data.count) bytes, not \(size)") }
        if let content, data != content { throw BenchError("\(path) differs from the served file") }
        try FileManager.default.removeItem(atPath: path)
      }
    }
  }

  /// 50 MiB of deterministic pseudo-random bytes (a 64-bit LCG, its high bits folded into the low ones).
  static func pseudoRandomBytes() -> Data {
    var state: UInt64 = 0x5EED_0050_4D69_4200
    var words = [UInt64](repeating: 0, count: size / 8)
    for i in words.indices {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      words[i] = state ^ (state >> 29)
    }
    return words.withUnsafeBytes { Data($0) }
  }

  static func rate(_ elapsed: Duration) -> Double { Double(size) / elapsed.seconds }
  static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
  static func megabytes(_ bytesPerSecond: Double) -> String { String(format: "%.1f MB/s", bytesPerSecond / 1e6) }
  static func pad(_ s: String, _ width: Int) -> String { DFUThroughputBenchmark.pad(s, width) }
}
