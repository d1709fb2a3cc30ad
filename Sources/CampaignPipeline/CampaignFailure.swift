/// A campaign that cannot start or go on, for a reason the operator can act on (a profile's problems, a run
/// that cannot be resumed, a catalogue that cannot be reached, a journal that cannot be written): one
/// message, which the command line prints as it prints its own failures (`CLIFailure`).
public struct CampaignFailure: Error, CustomStringConvertible, Sendable {
  public var message: String

  public init(_ message: String) { self.message = message }

  public var description: String { message }
}

/// The second interrupt of a campaign (`InterruptibleCampaign`): end now, leaving the devices in flight as
/// the journal has them. The command line ends with status 130, on its own path (never `exit` on the signal
/// source's thread).
public struct CampaignQuit: Error, Equatable, Sendable {
  public init() {}
}
