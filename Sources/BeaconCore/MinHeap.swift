/// A binary min-heap: `push` and `popMin` in O(log n), `min` in O(1). The one priority queue of the
/// package — the presence engine's deadlines (`DeadlineHeap`) and the simulated fleet's advertising
/// timeline (`AdvertisingSchedule`) both keep theirs in one.
///
/// [I] Equal elements come out in no promised order; a caller that needs one (the advertising timeline:
/// the device listed first) makes it part of `Element`'s `<`.
public struct MinHeap<Element: Comparable> {
  private var items: [Element] = []

  public init() {}

  public var isEmpty: Bool { items.isEmpty }
  public var count: Int { items.count }
  /// The smallest element, nil when empty.
  public var min: Element? { items.first }

  public mutating func push(_ element: Element) {
    items.append(element)
    var child = items.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard items[child] < items[parent] else { break }
      items.swapAt(child, parent)
      child = parent
    }
  }

  /// Removes and returns the smallest element, nil when empty.
  @discardableResult
  public mutating func popMin() -> Element? {
    guard let first = items.first else { return nil }
    let last = items.removeLast()
    guard !items.isEmpty else { return first }
    items[0] = last
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smallest = parent
      if left < items.count && items[left] < items[smallest] { smallest = left }
      if right < items.count && items[right] < items[smallest] { smallest = right }
      guard smallest != parent else { return first }
      items.swapAt(parent, smallest)
      parent = smallest
    }
  }
}

extension MinHeap: Sendable where Element: Sendable {}
