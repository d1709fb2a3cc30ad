import Foundation
import TestServers
import Testing

/// `scripts/test` (the README's second command, what CI runs) against a stand-in `swift` on `PATH`, a
/// no-op `scripts/setup` and a stand-in `scripts/fault-matrix`: a failed `swift build --build-tests` fails
/// the run before `swift test --skip-build` could run stale test binaries, and a build whose output is
/// nothing but `[n/m]` progress lines (all filtered, so grep itself exits 1) still goes on to the tests; the
/// tests run in two passes (the serial-peer suites on their own) whose counts add up; the fault matrix runs
/// after them, its counts reach the summary, and a loss (its exit 1) fails the run; the docs check runs after
/// the build and before the tests, and stale docs fail the run. Before the build, `scripts/format --check`
/// (the real one, over the stand-in's `swift format lint`): a finding, or a Swift file over 300 lines, fails the
/// run before anything is built;
/// after it, a compiler warning in our code fails the run, one in a dependency not.
@Suite("scripts/test", .timeLimit(.minutes(1))) struct TestScriptTests {
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// A copy of `scripts/test` in a scratch tree whose `swift` prints `buildOutput` and exits `buildStatus`
  /// for `build`, records every call, and passes `test`.
  struct Sandbox {
    let root: URL

    init(
      buildOutput: String, buildStatus: Int32, faultMatrixStatus: Int32 = 0, docsStatus: Int32 = 0,
      lintOutput: String = "", lintStatus: Int32 = 0
    ) throws {
      root = FileManager.default.temporaryDirectory.appendingPathComponent("scripts-test-\(UUID().uuidString)")
      let scripts = root.appendingPathComponent("scripts")
      let bin = root.appendingPathComponent("bin")
      for directory in [scripts, bin] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      }
      try FileManager.default.copyItem(at: Self.repositoryScript, to: scripts.appendingPathComponent("test"))
      for helper in ["swift-test-watched", "serial-peer-suites", "format", "file-shape"] {
        try FileManager.default.copyItem(
          at: Self.repositoryScript.deletingLastPathComponent().appendingPathComponent(helper),
          to: scripts.appendingPathComponent(helper))
      }
      try Self.executable(scripts.appendingPathComponent("setup"), "#!/bin/sh\nexit 0\n")
      // The stand-in fault matrix prints its last line as scripts/fault-matrix does and records its call.
      try Self.executable(
        scripts.appendingPathComponent("fault-matrix"),
        """
        #!/bin/sh
        echo "fault-matrix" >> "\(root.path)/calls"
        echo "fault matrix: 7 faults injected, \(faultMatrixStatus == 0 ? 7 : 6) survived, \(faultMatrixStatus == 0 ? 0 : 1) lost in 1 s (seed 3)"
        exit \(faultMatrixStatus)

        """)
      // The stand-in reference check passes (the real one reads the repository's sources and docs).
      try Self.executable(
        scripts.appendingPathComponent("protocol-refs"),
        "#!/bin/sh\necho \"protocol-refs $*\" >> \"\(root.path)/calls\"\nexit 0\n")
      // The stand-in docs check records its call and exits as told (the real one needs the built binary).
      try Self.executable(
        scripts.appendingPathComponent("gen-docs"),
        """
        #!/bin/sh
        echo "gen-docs $*" >> "\(root.path)/calls"
        exit \(docsStatus)

        """)
      try Self.executable(
        bin.appendingPathComponent("swift"),
        """
        #!/bin/sh
        echo "$*" >> "\(root.path)/calls"
        case "$1" in
          build) printf '%s\\n' "\(buildOutput)"; exit \(buildStatus) ;;
          format) printf '%s' "\(lintOutput)" >&2; exit \(lintStatus) ;;
          test) echo "Test run with 3 tests passed"; exit 0 ;;
        esac
        exit 64

        """)
    }

    static var repositoryScript: URL { TestScriptTests.repository.appendingPathComponent("scripts/test") }

    static func executable(_ url: URL, _ text: String) throws {
      try text.write(to: url, atomically: true, encoding: .utf8)
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
    }

    /// Runs `scripts/test --no-vm` to completion (termination handler, no blocking wait) and removes the tree;
    /// `calls` are the stand-in `swift`'s command lines.
    func run() async throws -> (status: Int32, output: String, calls: String) {
      defer { try? FileManager.default.removeItem(at: root) }
      let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
      let log = root.appendingPathComponent("output")
      _ = FileManager.default.createFile(atPath: log.path, contents: nil)
      let handle = try FileHandle(forWritingTo: log)
      defer { try? handle.close() }
      let status = try await ChildProcess.start(
        "/bin/bash", [root.appendingPathComponent("scripts/test").path, "--no-vm"],
        environment: ["PATH": root.appendingPathComponent("bin").path + ":" + path], inheriting: false,
        output: .file(handle), errors: .file(handle), input: .none
      ).wait()
      func text(_ name: String) -> String {
        (try? String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)) ?? ""
      }
      return (status, text("output"), text("calls"))
    }
  }

  @Test func aFailedBuildFailsTheRunAndNoTestsRun() async throws {
    let sandbox = try Sandbox(buildOutput: "[1/2] Compiling KBeacon Frame.swift\nerror: boom", buildStatus: 1)
    let (status, output, calls) = try await sandbox.run()
    #expect(status != 0, "\(output)")
    #expect(
      !calls.split(separator: "\n").contains { $0.hasPrefix("test") }, "swift test ran after a failed build: \(calls)")
    #expect(output.contains("error: boom"))
    #expect(!output.contains("[1/2]"))
  }

  @Test func aBuildWithOnlyProgressLinesGoesOnToTheTests() async throws {
    let sandbox = try Sandbox(buildOutput: "[1/2] Compiling KBeacon Frame.swift", buildStatus: 0)
    let (status, output, calls) = try await sandbox.run()
    #expect(status == 0, "\(output)")
    // Two passes: everything but the serial-peer suites, then those on their own; both counted.
    #expect(calls.contains("test --skip-build --skip NrfutilInteropTests"), "\(calls)")
    #expect(calls.contains("test --skip-build --filter NrfutilInteropTests"), "\(calls)")
    #expect(output.contains("tiers 1+2: 6 tests passed"))
    #expect(calls.contains("fault-matrix"), "\(calls)")
    // The docs check runs once, after the build and before the first test pass.
    let lines = calls.split(separator: "\n").map(String.init)
    let build = lines.firstIndex { $0.hasPrefix("build") }
    let docs = lines.firstIndex(of: "gen-docs --check")
    let test = lines.firstIndex { $0.hasPrefix("test") }
    #expect(build != nil && docs != nil && test != nil && build! < docs! && docs! < test!, "\(calls)")
    #expect(output.contains("summary: 6 passed, 0 failed; 7 faults injected, 7 survived, 0 lost"), "\(output)")
  }

  @Test func staleDocsFailTheRunBeforeAnyTest() async throws {
    let sandbox = try Sandbox(buildOutput: "", buildStatus: 0, docsStatus: 1)
    let (status, output, calls) = try await sandbox.run()
    #expect(status == 1, "\(output)")
    #expect(output.contains("docs check failed: run scripts/gen-docs"), "\(output)")
    #expect(!calls.split(separator: "\n").contains { $0.hasPrefix("test") }, "swift test ran with stale docs: \(calls)")
  }

  @Test func aFailedBuildSkipsTheDocsCheck() async throws {
    let sandbox = try Sandbox(buildOutput: "error: boom", buildStatus: 1)
    let (_, output, calls) = try await sandbox.run()
    #expect(!calls.contains("gen-docs"), "the docs check ran after a failed build: \(calls)\n\(output)")
  }

  @Test func aLossInTheFaultMatrixFailsTheRun() async throws {
    let sandbox = try Sandbox(buildOutput: "", buildStatus: 0, faultMatrixStatus: 1)
    let (status, output, _) = try await sandbox.run()
    #expect(status == 1, "\(output)")
    #expect(output.contains("fault matrix failed (exit 1)"))
    #expect(!output.contains("summary:"))
  }

  @Test func aFormatFindingFailsTheRunBeforeTheBuild() async throws {
    let finding = "Sources/KBeacon/Frame.swift:3:1: error: [Indentation] indent by 2 spaces"
    let sandbox = try Sandbox(buildOutput: "", buildStatus: 0, lintOutput: finding, lintStatus: 1)
    let (status, output, calls) = try await sandbox.run()
    #expect(status == 1, "\(output)")
    #expect(output.contains(finding), "\(output)")
    #expect(output.contains("scripts/format --check: 1 findings"), "\(output)")
    #expect(calls.contains("format lint --strict --recursive"), "\(calls)")
    #expect(!calls.split(separator: "\n").contains { $0.hasPrefix("build") }, "built after a format finding: \(calls)")
  }

  @Test func aSwiftFileOverThreeHundredLinesFailsTheRunBeforeTheBuild() async throws {
    let sandbox = try Sandbox(buildOutput: "", buildStatus: 0)
    let sources = sandbox.root.appendingPathComponent("Sources/KBeacon")
    try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
    let line = "let x = 1\n"
    try String(repeating: line, count: 300).write(
      to: sources.appendingPathComponent("Short.swift"), atomically: true, encoding: .utf8)
    try String(repeating: line, count: 301).write(
      to: sources.appendingPathComponent("Long.swift"), atomically: true, encoding: .utf8)
    let (status, output, calls) = try await sandbox.run()
    #expect(status == 1, "\(output)")
    #expect(output.contains("Sources/KBeacon/Long.swift: 301 lines (at most 300)"), "\(output)")
    #expect(!output.contains("Short.swift"), "\(output)")
    #expect(!calls.split(separator: "\n").contains { $0.hasPrefix("build") }, "built after a long file: \(calls)")
  }

  @Test func aCompilerWarningInOurCodeFailsTheRunBeforeTheTests() async throws {
    // $PWD: the stand-in `swift` prints it as the shell it runs in expands it, the directory scripts/test
    // builds in, so the path is absolute as SwiftPM prints it.
    for (line, fails) in [
      ("$PWD/Sources/KBeacon/Frame.swift:12:9: warning: variable 'x' was never mutated", true),
      ("Tests/KBeaconTests/FrameTests.swift:3:5: warning: will never be executed", true),
      ("$PWD/.build/checkouts/GRDB.swift/GRDB/Core/Database.swift:7:1: warning: deprecated", false),
      ("warning: 'beacon-provision': dependency 'x' is not used by any target", false),
    ] {
      let sandbox = try Sandbox(buildOutput: "[1/2] Compiling KBeacon Frame.swift\n\(line)", buildStatus: 0)
      let (status, output, calls) = try await sandbox.run()
      if fails {
        #expect(status == 1, "\(line): \(output)")
        #expect(output.contains("1 compiler warnings in our code"), "\(output)")
        #expect(!calls.split(separator: "\n").contains { $0.hasPrefix("test") }, "tests ran after a warning: \(calls)")
      } else {
        #expect(status == 0, "\(line): \(output)")
      }
    }
  }
}
