import BeaconCore
import Testing

@testable import Profiles

/// Profile loading is not quadratic in the inventory: inventory rows and `select.addresses` are looked up by a hash of
/// the address (the timing is in the README, `profile check` of generated files timed by hand; no timed test
/// here). These check that the index answers exactly what the linear search did: any case, the first row
/// of an address listed twice, an index kept in step when rows change, and duplicates still reported.
@Suite("Inventory and address index", .timeLimit(.minutes(1))) struct InventoryIndexTests {
  static func address(_ i: Int) -> String {
    let hex = String(i, radix: 16, uppercase: true)
    let digits = String(repeating: "0", count: max(0, 6 - hex.count)) + hex
    let octets = stride(from: 0, to: 6, by: 2).map { start -> String in
      let a = digits.index(digits.startIndex, offsetBy: start)
      return String(digits[a..<digits.index(a, offsetBy: 2)])
    }
    return "DD:34:02:" + octets.joined(separator: ":")
  }

  @Test func everyRowIsFoundByItsAddressInAnyCase() throws {
    let csv = "address,minor\n" + (0..<5000).map { "\(Self.address($0)),\($0)" }.joined(separator: "\n")
    let inventory = try Inventory.parse(Array(csv.utf8), file: "inv.csv")
    for i in [0, 1, 2499, 4999] {
      let row = try #require(inventory.row(for: Self.address(i).lowercased()))
      #expect(row.index == i && row.variables["minor"] == "\(i)")
    }
    #expect(inventory.row(for: Self.address(5000)) == nil)
  }

  @Test func changedRowsAreIndexedAgain() {
    var inventory = Inventory(rows: [
      Inventory.Row(address: "DD:34:02:00:00:01", index: 0, variables: ["a": "1"], tags: [])
    ])
    #expect(inventory.row(for: "DD:34:02:00:00:02") == nil)
    inventory.rows.append(
      Inventory.Row(address: "DD:34:02:00:00:02", index: 1, variables: ["a": "2"], tags: [])
    )
    #expect(inventory.row(for: "dd:34:02:00:00:02")?.variables["a"] == "2")
    // Built in code with an address twice (the parser refuses that), the first row still answers.
    inventory.rows.append(Inventory.Row(address: "DD:34:02:00:00:01", index: 2, variables: ["a": "3"], tags: []))
    #expect(inventory.row(for: "DD:34:02:00:00:01")?.variables["a"] == "1")
  }

  @Test func anAddressListedTwiceIsStillReported() {
    let csv =
      "address,minor\n" + (0..<3000).map { "\(Self.address($0 == 2999 ? 17 : $0)),\($0)" }.joined(separator: "\n")
    do {
      _ = try Inventory.parse(Array(csv.utf8), file: "inv.csv")
      Issue.record("accepted")
    } catch {
      #expect(
        error.all.map(\.description) == [
          "inv.csv:3001:1: $[2999]: address \(Self.address(17)) is listed twice (lines 19 and 3001)"
        ])
    }
  }

  @Test func selectAddressesAreLookedUpInAnyCaseWithTheirFirstPosition() {
    var select = Selection(addresses: (0..<4000).map { Self.address($0).lowercased() } + [Self.address(5)])
    #expect(select.position(of: Self.address(3999)) == 3999)
    #expect(select.position(of: Self.address(5)) == 5)
    #expect(select.rejection(of: Selection.Candidate(address: Self.address(1234), name: nil, rssi: nil)) == nil)
    #expect(
      select.rejection(of: Selection.Candidate(address: Self.address(4000), name: nil, rssi: nil))
        == "address not in select.addresses")
    select.addresses = [Self.address(4000)]
    #expect(select.position(of: Self.address(4000)) == 0 && select.position(of: Self.address(5)) == nil)
    #expect(Selection().position(of: Self.address(0)) == nil)
  }

  /// The byte-by-byte address check accepts exactly what the BluetoothAddress-based one did for a profile.
  @Test func addressTextIsSixHexPairsJoinedByColons() {
    for good in ["DD:34:02:06:D1:01", "dd:34:02:06:d1:0f", "00:00:00:00:00:00"] {
      #expect(BluetoothAddressText.isValid(good), "\(good)")
    }
    for bad in [
      "DD-34-02-06-D1-01", "DD:34:02:06:D1", "DD:34:02:06:D1:01:", "DD:34:02:06:D1:0G", "DD34:02:06:D1:01:1", "",
      "DD:34:02:06:D1:0١", " DD:34:02:06:D1:0", "DD:34:02:06:D1:01\n",
    ] {
      #expect(!BluetoothAddressText.isValid(bad), "\(bad)")
      #expect(BluetoothAddress(bad) == nil || bad.contains("-") || bad.utf8.count != 17, "\(bad)")
    }
  }
}
