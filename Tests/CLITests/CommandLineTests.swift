import ArgumentParser
import Testing

@testable import BeaconProvisionCLI

@Suite(.timeLimit(.minutes(5))) struct CommandLineTests {
  @Test func adapterChoiceParsesEveryForm() {
    #expect(AdapterChoice(argument: "hci0") == .live("hci0"))
    #expect(AdapterChoice(argument: "sim") == .simulated(fleetFile: nil))
    #expect(AdapterChoice(argument: "sim:fleet.json") == .simulated(fleetFile: "fleet.json"))
    #expect(AdapterChoice(argument: "sim:") == nil)
    #expect(AdapterChoice(argument: "bluetooth") == nil)
  }

  @Test func helpNamesEverySubcommand() {
    let help = BeaconProvision.helpMessage()
    for command in BeaconProvision.commands {
      #expect(help.contains(command._commandName))
    }
  }
}
