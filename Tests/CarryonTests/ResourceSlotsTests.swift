@testable import Carryon
import Testing

/// The table a plan finds its resources in by URI and byte range.
@Suite("Resource slots")
struct ResourceSlotsTests {
    struct Key: Equatable {
        var uri: String
        var offset: Int?
    }

    /// Adds `key` unless it is there; returns its index.
    private func add(_ key: Key, to keys: inout [Key], _ slots: inout ResourceSlots, hash: (Key) -> Int) -> Int {
        let captured = keys
        if let index = slots.find(hash: hash(key), isMatch: { captured[$0] == key }) { return index }
        keys.append(key)
        let all = keys
        slots.insert(keys.count - 1, hash: hash(key), hashOf: { hash(all[$0]) })
        return keys.count - 1
    }

    @Test(arguments: [false, true])
    func everyKeyIsFoundAgainAcrossGrowth(colliding: Bool) {
        // With every hash equal, each lookup walks the probe sequence: the worst case still answers right.
        let hash: (Key) -> Int = colliding ? { _ in 42 } : { ResourceSlots.hash(uri: $0.uri, offset: $0.offset, length: nil) }
        var keys: [Key] = []
        var slots = ResourceSlots()
        let count = colliding ? 300 : 20_000
        for number in 0..<count {
            #expect(add(Key(uri: "https://cdn.example/\(number % (count / 2)).ts", offset: number < count / 2 ? nil : 0),
                        to: &keys, &slots, hash: hash) == number)
        }
        // Named again, each resource is found where it was put, and nothing is added.
        for number in stride(from: 0, to: count, by: 7) {
            #expect(add(Key(uri: "https://cdn.example/\(number % (count / 2)).ts", offset: number < count / 2 ? nil : 0),
                        to: &keys, &slots, hash: hash) == number)
        }
        #expect(keys.count == count && slots.count == count)
    }

    @Test func aRangeIsAnotherResourceOfTheSameURI() {
        let a = ResourceSlots.hash(uri: "https://cdn.example/all.ts", offset: 0, length: 100)
        let b = ResourceSlots.hash(uri: "https://cdn.example/all.ts", offset: 100, length: 100)
        let whole = ResourceSlots.hash(uri: "https://cdn.example/all.ts", offset: nil, length: nil)
        #expect(Set([a, b, whole]).count == 3)
    }
}
