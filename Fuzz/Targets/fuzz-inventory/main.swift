import FuzzSupport
import Profiles

// A profile's inventory (README "Profiles"), CSV or JSON by its extension; the input's first byte picks
// which. Every diagnostic is formatted, and a parsed inventory gives each row's template variables.
Fuzzer.run { data, size in
  let bytes = Fuzzer.bytes(data, size)
  let file = (bytes.first ?? 0) & 1 == 0 ? "inventory.csv" : "inventory.json"
  do {
    let inventory = try Inventory.parse(Array(bytes.dropFirst()), file: file)
    for row in inventory.rows.prefix(16) { _ = inventory.row(for: row.address) }
  } catch let error as ProfileDiagnostics {
    _ = error.description
  } catch {
  }
  return 0
}
