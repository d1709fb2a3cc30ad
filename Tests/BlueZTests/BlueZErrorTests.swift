import Glibc
import Testing

@testable import BlueZ

/// The one-line errors an operator sees when the radio is unusable must name what is missing.
@Suite(.timeLimit(.minutes(2))) struct BlueZErrorTests {
  @Test func noBluetoothInTheKernelSuggestsTheSimulator() {
    let text = BlueZError(errno: EAFNOSUPPORT, call: "socket(AF_BLUETOOTH)").description
    #expect(text.contains("no Bluetooth support"))
    #expect(text.contains("--adapter sim"))
  }

  @Test func permissionErrorsNameTheCapabilities() {
    let text = BlueZError(errno: EPERM, call: "hci_le_set_scan_parameters", adapter: "hci0").description
    // Which of the two this process lacks, and how to grant them: BluetoothCapabilitiesTests.
    #expect(text.contains("CAP_NET_RAW") && text.contains("CAP_NET_ADMIN"))
    #expect(text.contains("hci0"))
  }

  @Test func listingAdaptersOnThisMachineFailsCleanlyOrListsThem() {
    // Build machines have no Bluetooth: the listing must fail with EAFNOSUPPORT, never crash. On a machine
    // with Bluetooth it returns a list (possibly empty).
    do {
      _ = try Adapter.all()
    } catch let error as BlueZError {
      #expect(error.errno == EAFNOSUPPORT)
    } catch {
      Issue.record("unexpected error \(error)")
    }
  }

  @Test func linkAndServerErrorsNameTheCause() {
    #expect(BlueZError(errno: EADDRINUSE, call: "bind(L2CAP)", adapter: "hci1").description.contains("bluetoothd"))
    #expect(
      BlueZError(errno: EALREADY, call: "connect(L2CAP LE)", adapter: "hci0").description.contains("one link at a time")
    )
    #expect(BlueZError(errno: ERFKILL, call: "HCIDEVUP", adapter: "hci0").description.contains("rfkill unblock"))
    #expect(BlueZError(errno: ENETDOWN, call: "send(HCI)", adapter: "hci0").description.contains("hciconfig hci0 up"))
  }
}
