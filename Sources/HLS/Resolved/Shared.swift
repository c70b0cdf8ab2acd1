/// An immutable value kept once on the heap and shared by reference: what many segments hold
/// alike (the init section an `EXT-X-MAP` gives them all), or what few have (a program date),
/// costs a segment one pointer instead of the value's whole size. Compared and hashed by value,
/// so the values holding it keep their value semantics.
final class Shared<Value: Sendable & Hashable>: Sendable, Hashable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }

    static func == (lhs: Shared, rhs: Shared) -> Bool {
        lhs === rhs || lhs.value == rhs.value
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(value)
    }
}
