import Foundation
import OwnThreads

/// Debian's PostgreSQL server (the `postgresql` package) started for one test suite: `initdb` into a
/// temporary folder, `postgres` listening only on a Unix socket in that folder (no TCP port to clash with
/// another test or a system server), trust authentication for the superuser `beacon` and a password
/// (SCRAM) for every other role a test creates. `stop()` shuts
/// it down (SIGINT, PostgreSQL's fast shutdown) and removes the folder; otherwise it is stopped when the
/// value is released.
///
/// `initdb` and `postgres` refuse to run as root. When the tests run as root (CI containers do), both run
/// as the `postgres` system user the package creates, through `setpriv`, which switches user and then
/// execs the program itself, so the `Process` we hold is the server and SIGINT reaches it [I].
public final class PostgresServer: Sendable {
  public let process: SpawnedProcess
  public let folder: String
  /// The folder holding the server's socket (`host=` for libpq).
  public var socketFolder: String { folder }
  public static let user = "beacon"

  private init(process: SpawnedProcess, folder: String) {
    self.process = process
    self.folder = folder
  }

  /// The newest `/usr/lib/postgresql/<major>/bin` on the machine.
  public static func binaries() throws -> String {
    let root = "/usr/lib/postgresql"
    let majors = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
    guard let major = majors.last else {
      throw ServerError("no PostgreSQL under \(root): run scripts/setup (package postgresql)")
    }
    return "\(root)/\(major)/bin"
  }

  public static func start() async throws -> PostgresServer {
    let bin = try binaries()
    let folder = try LocalTools.temporaryDirectory("postgres")
    let data = folder + "/data"
    let asUser = try privilegeDrop(folder: folder)
    try await LocalTools.run(
      asUser.tool,
      asUser.prefix + [
        "\(bin)/initdb", "-D", data, "-U", user, "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C",
      ])
    // `beacon` needs no password; any other role must give its own (the password tests).
    try "local all \(user) trust\nlocal all all scram-sha-256\n".write(
      toFile: data + "/pg_hba.conf", atomically: false, encoding: .utf8)
    let arguments =
      asUser.prefix + [
        "\(bin)/postgres", "-D", data, "-k", folder, "-c", "listen_addresses=", "-c", "fsync=off",
        "-c", "max_connections=60", "-c", "shared_buffers=16MB",
      ]
    let log = folder + "/server.log"
    _ = FileManager.default.createFile(atPath: log, contents: nil)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
    let process = try ChildProcess.start(asUser.tool, arguments, output: .file(handle), errors: .file(handle)).process
    let server = PostgresServer(process: process, folder: folder)
    let socket = folder + "/.s.PGSQL.5432"
    let ready = await LocalTools.poll(within: 30) {
      FileManager.default.fileExists(atPath: socket) && process.isRunning
    }
    guard ready else {
      let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
      throw ServerError("PostgreSQL did not start in \(folder): \(text)")
    }
    // The socket appears before the server accepts queries: wait for a real one.
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
      let probe = try? await ChildProcess.run(
        bin + "/pg_isready", ["-h", folder, "-U", user, "-d", "postgres", "-q"], input: .none)
      if probe?.status == 0 { break }
      try? await Task.sleep(for: .milliseconds(50))
    }
    return server
  }

  /// A fresh, empty database on this server; returns its URL (no password: trust authentication).
  public func createDatabase(_ name: String = "journal_" + UUID().uuidString.prefix(8).lowercased()) async throws
    -> String
  {
    try await LocalTools.run(
      try Self.binaries() + "/psql",
      ["-h", folder, "-U", Self.user, "-d", "postgres", "-q", "-c", "CREATE DATABASE \(name)"])
    return url(database: name)
  }

  /// `postgresql:///NAME?host=FOLDER&user=beacon`.
  public func url(database: String) -> String {
    "postgresql:///\(database)?host=\(folder)&user=\(Self.user)"
  }

  /// `pg_ctl restart -m fast` (gateways must go on through a server restart): every connection
  /// is dropped, the server stops and starts again with the same options (`postmaster.opts`). The new
  /// server is `pg_ctl`'s child, not `process`: `stop()` then stops it through its `postmaster.pid`.
  /// Returns once it accepts connections again (`-w`).
  ///
  /// `pg_ctl` runs under Python's `subprocess`, which closes every other descriptor in the child: Foundation's
  /// `Process` learns of a child's end when a socket the child inherits closes, and the server `pg_ctl`
  /// leaves running would inherit it and hold it open — the call would never return.
  public func restart() async throws {
    let asUser = try Self.privilegeDrop(folder: folder)
    let command =
      [asUser.tool] + asUser.prefix + [
        try Self.binaries() + "/pg_ctl", "restart", "-D", folder + "/data", "-m", "fast", "-w", "-l",
        folder + "/restarted.log",
      ]
    try await LocalTools.run(
      "/usr/bin/python3", ["-c", "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:]).returncode)"] + command)
  }

  /// The running postmaster's pid from its `postmaster.pid` (first line), when it is not `process`.
  private var detachedPostmaster: pid_t? {
    guard !process.isRunning, let text = try? String(contentsOfFile: folder + "/data/postmaster.pid", encoding: .utf8),
      let pid = text.split(separator: "\n").first.flatMap({ pid_t($0) }), Self.alive(pid)
    else { return nil }
    return pid
  }

  /// Whether `pid` runs: it exists and is not a zombie waiting for a parent that does not reap it.
  static func alive(_ pid: pid_t) -> Bool {
    guard kill(pid, 0) == 0 else { return false }
    let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
    return !stat.contains(") Z ")
  }

  /// Fast shutdown, then the folder is removed.
  public func stop() async {
    let (process, detached) = (process, detachedPostmaster)
    await OwnThread.run("postgres-stop") {
      if process.isRunning { process.interrupt() }
      process.waitUntilExit()
      if let detached {
        kill(detached, SIGINT)
        for _ in 0..<300 where Self.alive(detached) { usleep(100_000) }
      }
    }
    try? FileManager.default.removeItem(atPath: folder)
  }

  deinit {
    if process.isRunning { process.interrupt() } else if let pid = detachedPostmaster { kill(pid, SIGINT) }
  }

  /// How to run the server's programs: directly, or — as root — through `setpriv` as the `postgres` user,
  /// with `folder` handed to that user.
  static func privilegeDrop(folder: String) throws -> (tool: String, prefix: [String]) {
    guard getuid() == 0 else { return ("/usr/bin/env", []) }
    guard let entry = getpwnam("postgres") else {
      throw ServerError("tests run as root and there is no `postgres` user to run initdb as (package postgresql)")
    }
    guard chown(folder, entry.pointee.pw_uid, entry.pointee.pw_gid) == 0 else {
      throw ServerError("cannot chown \(folder)")
    }
    return (
      "/usr/bin/setpriv",
      ["--reuid=\(entry.pointee.pw_uid)", "--regid=\(entry.pointee.pw_gid)", "--clear-groups", "--reset-env", "--"]
    )
  }
}
