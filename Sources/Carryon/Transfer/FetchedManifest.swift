/// A manifest as fetched, unparsed: where it came from (after redirects) and its bytes.
struct FetchedManifest: Sendable {
    /// The absolute URL it was read from; relative references in it resolve against this.
    var url: String
    /// Its bytes, decoded when the server compressed them.
    var bytes: [UInt8]
}
