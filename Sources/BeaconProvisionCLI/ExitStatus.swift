/// The exit statuses `--help` states: every command's discussion ends with an "Exit status:" paragraph, so a
/// script can tell outcomes apart without reading the code. The codes a command chooses itself (0, 1, and 2, 3,
/// 130 where it has them) are written in its own discussion; the usage error every command shares is worded
/// once, here. `ExitStatusHelpTests` walks every command's help and fails when one leaves this out.
enum ExitStatus {
  /// ArgumentParser's exit code for a command line it refuses: an unknown option, a missing or malformed
  /// argument, a failed `validate()` (64 is `EX_USAGE` of sysexits.h).
  static let usageCode: Int32 = 64

  /// The usage-error clause, for discussions that list their codes inline.
  static let usage = "\(usageCode) a usage error (an unknown option, a missing or malformed argument)"

  /// "Exit status: CODES; 64 a usage error …." — `codes` are the command's own, 0 first.
  static func paragraph(_ codes: String) -> String {
    "Exit status: \(codes); \(usage)."
  }

  /// `text`, a blank line, then the exit-status paragraph.
  static func discussion(_ text: String, codes: String) -> String {
    text + "\n\n" + paragraph(codes)
  }

  /// For a command that only groups subcommands.
  static let group = paragraph("as each subcommand's --help says")

  /// For a command that talks to one KBeacon over an authenticated session.
  static let kbeaconSession = paragraph(
    "0 done; 1 an error (no such device, the link failed, the device refused); "
      + "\(KBeaconConnector.wrongPasswordExitCode) a wrong password (retrying may lock the device out)")
}
