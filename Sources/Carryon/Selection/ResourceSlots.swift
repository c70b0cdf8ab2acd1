/// Which of a plan's resources has a given URI and byte range, found without a dictionary.
///
/// A plan of a million segments looks up each one to download a resource named twice only
/// once. A dictionary from (URI, offset, length) to a row costs 117 MB for a million entries (two
/// million buckets of a key that copies the URI, and both ranges as optionals); these slots are 8 MB: an open-addressed
/// table of indices into the plan's own resource list, the key compared there.
struct ResourceSlots {
    /// Index + 1 of a resource, or 0 for an empty slot; a power of two long. (Four bytes
    /// each: a plan's rows are far fewer than 2³¹.)
    private var slots: [UInt32] = Array(repeating: 0, count: 16)
    private(set) var count = 0

    /// The hash of a resource's key.
    static func hash(uri: String, offset: Int?, length: Int?) -> Int {
        var hasher = Hasher()
        hasher.combine(uri)
        hasher.combine(offset)
        hasher.combine(length)
        return hasher.finalize()
    }

    /// Makes room for `total` resources in all without growing, given the hash of each one
    /// already in the table by its index.
    mutating func reserve(_ total: Int, hashOf: (Int) -> Int) {
        var size = slots.count
        while size < 2 * total { size *= 2 }
        guard size > slots.count else { return }
        let old = slots
        slots = Array(repeating: 0, count: size)
        for entry in old where entry != 0 {
            place(Int(entry) - 1, hash: hashOf(Int(entry) - 1))
        }
    }

    /// The index of the resource with `hash` that `isMatch` accepts, if there is one.
    func find(hash: Int, isMatch: (Int) -> Bool) -> Int? {
        let mask = slots.count - 1
        var slot = hash & mask
        while slots[slot] != 0 {
            if isMatch(Int(slots[slot]) - 1) { return Int(slots[slot]) - 1 }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// Records that the resource at `index` has `hash` (it is not in the table yet).
    mutating func insert(_ index: Int, hash: Int, hashOf: (Int) -> Int) {
        if 2 * (count + 1) > slots.count { reserve(count + 1, hashOf: hashOf) }
        place(index, hash: hash)
        count += 1
    }

    private mutating func place(_ index: Int, hash: Int) {
        let mask = slots.count - 1
        var slot = hash & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = UInt32(index + 1)
    }
}
