import Foundation
import TestServers
import Testing

/// `scripts/gen-docs` (the generated references and the docs checks `scripts/test` runs) in a scratch tree: a
/// two-module manifest, the repository's profile schema, and a stand-in `beacon-provision` whose
/// `--experimental-dump-help` prints a small command tree. Freshly generated docs pass `--check`; a hand edit
/// of a generated file, a module the architecture table does not describe, a README over 10,000 characters, a
/// relative link to a missing file or heading each fail it, naming the problem; links into docs/protocols/
/// are checked only once that folder exists.
@Suite("scripts/gen-docs", .timeLimit(.minutes(2))) struct GenDocsScriptTests {
  static let script = TestScriptTests.repository.appendingPathComponent("scripts/gen-docs").path

  /// The scratch tree; `check()` and `generate()` run the copied script in it.
  struct Tree {
    let root: String

    init() throws {
      root = try LocalTools.temporaryDirectory("gen-docs")
      for folder in ["scripts", "profiles", "docs/guide", "bin"] {
        try FileManager.default.createDirectory(atPath: "\(root)/\(folder)", withIntermediateDirectories: true)
      }
      try FileManager.default.copyItem(atPath: GenDocsScriptTests.script, toPath: "\(root)/scripts/gen-docs")
      try FileManager.default.copyItem(
        atPath: TestScriptTests.repository.appendingPathComponent("profiles/profile.schema.json").path,
        toPath: "\(root)/profiles/profile.schema.json")
      write(
        "Package.swift",
        """
        // swift-tools-version: 6.1
        import PackageDescription
        let package = Package(name: "sandbox", targets: [.target(name: "Core"), .target(name: "Edge", dependencies: ["Core"])])

        """)
      write(
        "bin/beacon-provision",
        """
        #!/bin/sh
        cat <<'JSON'
        {"serializationVersion": 0, "command": {"commandName": "beacon-provision", "abstract": "Keep beacons configured.",
         "subcommands": [{"commandName": "scan", "abstract": "Discover beacons.", "superCommands": ["beacon-provision"],
          "arguments": [{"kind": "option", "names": [{"kind": "long", "name": "duration"}],
           "preferredName": {"kind": "long", "name": "duration"}, "valueName": "seconds", "defaultValue": "10.0",
           "isOptional": true, "isRepeating": false, "shouldDisplay": true, "abstract": "How long to scan."}]}]}}
        JSON

        """)
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: "\(root)/bin/beacon-provision")
      write(
        "README.md",
        "# sandbox\n\nSee [the docs](docs/README.md) and [commands](docs/reference/commands.md#beacon-provision-scan).\n"
      )
      write(
        "docs/README.md",
        "# Docs\n\n[Architecture](architecture.md#modules), [protocols](protocols/README.md#kbeacon).\n")
      // The pages the generated references link to.
      write("docs/guide/README.md", "# Common options\n")
      write("docs/guide/provision.md", "# Provisioning\n")
      write(
        "docs/architecture.md",
        """
        # Architecture

        ## Modules

        <!-- gen-docs:modules begin -->
        | module | holds | depends on (Package.swift) | used by |
        |---|---|---|---|
        | `Core` | the pure part | — | — |
        | `Edge` | the live part | — | — |
        <!-- gen-docs:modules end -->

        <!-- gen-docs:test-targets begin -->
        <!-- gen-docs:test-targets end -->

        """)
    }

    func write(_ path: String, _ text: String) {
      _ = FileManager.default.createFile(atPath: "\(root)/\(path)", contents: Data(text.utf8))
    }

    func read(_ path: String) throws -> String { try String(contentsOfFile: "\(root)/\(path)", encoding: .utf8) }

    func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
      try await LocalTools.output(
        "/usr/bin/python3", ["\(root)/scripts/gen-docs", "--binary", "\(root)/bin/beacon-provision"] + arguments,
        in: root, within: 90)
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }
  }

  /// A tree whose docs were just generated (and pass the check).
  static func generated() async throws -> Tree {
    let tree = try Tree()
    let generate = try await tree.run([])
    #expect(generate.status == 0, "\(generate.stderr)")
    return tree
  }

  @Test func freshlyGeneratedDocsPassTheCheck() async throws {
    let tree = try await Self.generated()
    defer { tree.remove() }
    let check = try await tree.run(["--check"])
    #expect(check.status == 0, "\(check.stderr)")
    let commands = try tree.read("docs/reference/commands.md")
    #expect(commands.contains("## `beacon-provision scan`"))
    #expect(commands.contains("| `--duration <seconds>` | How long to scan. | `10.0` |  |"), "\(commands)")
    #expect(try tree.read("docs/reference/profile.md").contains("## `desired.slots[]`"))
    // The dependency column comes from the manifest; the hand-written cells stay.
    let architecture = try tree.read("docs/architecture.md")
    #expect(architecture.contains("| `Edge` | the live part | Core | — |"), "\(architecture)")
    #expect(architecture.contains("| `Core` | the pure part | — | Edge |"), "\(architecture)")
  }

  @Test func aHandEditedReferenceIsStale() async throws {
    let tree = try await Self.generated()
    defer { tree.remove() }
    tree.write("docs/reference/commands.md", try tree.read("docs/reference/commands.md") + "\nedited by hand\n")
    let check = try await tree.run(["--check"])
    #expect(check.status == 1)
    #expect(check.stderr.contains("docs/reference/commands.md is stale: run scripts/gen-docs"), "\(check.stderr)")
  }

  @Test func aModuleNewToTheManifestMustBeDescribed() async throws {
    let tree = try await Self.generated()
    defer { tree.remove() }
    tree.write(
      "Package.swift",
      """
      // swift-tools-version: 6.1
      import PackageDescription
      let package = Package(name: "sandbox", targets: [
        .target(name: "Core"), .target(name: "Edge", dependencies: ["Core"]), .target(name: "Campaigns", dependencies: ["Core"])])

      """)
    let stale = try await tree.run(["--check"])
    #expect(stale.status == 1)
    #expect(stale.stderr.contains("docs/architecture.md is stale"), "\(stale.stderr)")
    _ = try await tree.run([])
    let undescribed = try await tree.run(["--check"])
    #expect(undescribed.status == 1)
    #expect(undescribed.stderr.contains("describe `Campaigns`"), "\(undescribed.stderr)")
    #expect(try tree.read("docs/architecture.md").contains("| `Core` | the pure part | — | Edge, Campaigns |"))
  }

  @Test func aLongReadmeFails() async throws {
    let tree = try await Self.generated()
    defer { tree.remove() }
    tree.write("README.md", "# sandbox\n\n" + String(repeating: "x", count: 10_000) + "\n")
    let check = try await tree.run(["--check"])
    #expect(check.status == 1)
    #expect(check.stderr.contains("README.md: 10012 characters, more than 10000"), "\(check.stderr)")
  }

  @Test func brokenRelativeLinksFailAndProtocolLinksWaitForTheirFolder() async throws {
    let tree = try await Self.generated()
    defer { tree.remove() }
    tree.write(
      "docs/guide.md",
      "# Guide\n\n[gone](missing.md), [no such heading](architecture.md#nowhere), [web](https://example.org/x.md)\n")
    let check = try await tree.run(["--check"])
    #expect(check.status == 1)
    #expect(
      check.stderr.contains("docs/guide.md: link to missing.md: docs/missing.md does not exist"), "\(check.stderr)")
    #expect(
      check.stderr.contains("docs/guide.md: link to architecture.md#nowhere: no heading #nowhere"), "\(check.stderr)")
    #expect(!check.stderr.contains("example.org"))
    #expect(!check.stderr.contains("protocols"), "docs/protocols/ is not in the tree yet: \(check.stderr)")

    try FileManager.default.createDirectory(atPath: "\(tree.root)/docs/protocols", withIntermediateDirectories: true)
    tree.write("docs/guide.md", "# Guide\n")
    tree.write("docs/protocols/README.md", "# Protocol notes\n\n## Nordic DFU\n")
    let protocols = try await tree.run(["--check"])
    #expect(protocols.status == 1)
    #expect(
      protocols.stderr.contains("docs/README.md: link to protocols/README.md#kbeacon: no heading #kbeacon"),
      "\(protocols.stderr)")
    tree.write("docs/protocols/README.md", "# Protocol notes\n\n## KBeacon\n")
    let fixed = try await tree.run(["--check"])
    #expect(fixed.status == 0, "\(fixed.stderr)")
  }
}
