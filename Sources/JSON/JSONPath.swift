import BeaconCore

/// A path into a JSON document, printed the way operators read it: `$.desired.slots[0].major`.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
  public enum Component: Sendable, Hashable {
    case key(String)
    case index(Int)
  }

  public var components: [Component]

  public init(_ components: [Component] = []) { self.components = components }

  public static let root = JSONPath()

  public func appending(_ key: String) -> JSONPath { JSONPath(components + [.key(key)]) }
  public func appending(_ index: Int) -> JSONPath { JSONPath(components + [.index(index)]) }

  public var description: String {
    components.reduce("$") { text, c in
      switch c {
      case .key(let k):
        k.utf8.count <= TerminalText.echoLimit && k.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
          ? "\(text).\(k)" : "\(text)[\"\(k.echoed)\"]"
      case .index(let i): "\(text)[\(i)]"
      }
    }
  }
}
