import ArgumentParser
import Carryon
import Foundation

/// `--key`, `--keys-file` and `--license-url`: keys the user holds for a common-encryption
/// stream, and a Clear Key licence server its MPD does not name.
struct HeldKeyOptions: ParsableArguments {
    @Option(name: .customLong("key"), help: ArgumentHelp(
        "A content key you hold, KID:KEY in hexadecimal (the KID with or without dashes; repeatable): used for the stream's key with that KID, checked against its first samples before the download, sealed at rest, never printed. Other users of this machine can see a command's arguments: --keys-file keeps keys out of them.",
        valueName: "kid:key"))
    var keys: [String] = []

    @Option(name: .customLong("keys-file"), help: ArgumentHelp("A file of content keys you hold, one KID:KEY a line (# starts a comment).", valueName: "file"))
    var keysFile: String?

    @Option(name: .customLong("license-url"), help: ArgumentHelp(
        "A W3C Clear Key licence server for the stream's DASH keys when its MPD names none (dashif:Laurl); asked with the --header headers. Kept with the asset.",
        valueName: "url"))
    var licenseURL: String?

    /// The keys given (read before anything is made, so a typo costs nothing): those of
    /// `--key`, which the stream must use, and those of `--keys-file`, a key ring.
    ///
    /// - Throws: ``CarryonError/Code/invalidValue`` naming the entry or line that is not a key,
    ///   never the key.
    func heldKeys() throws(CarryonError) -> (given: HeldKeys, ring: HeldKeys) {
        let given = try HeldKeys(keys)
        let ring = try keysFile.map { path throws(CarryonError) in try HeldKeys.read(file: URL(fileURLWithPath: path)) } ?? HeldKeys()
        _ = try given.merging(ring)
        return (given, ring)
    }

    var isEmpty: Bool { keys.isEmpty && keysFile == nil && licenseURL == nil }

    /// Gives the keys to `session` for asset `id`'s next planning, and sets its licence server.
    func apply(_ held: (given: HeldKeys, ring: HeldKeys), to session: DownloadSession, for id: String) async throws(CarryonError) {
        if let licenseURL { try await session.setLicenseURL(licenseURL, for: id) }
        try await hold(held, in: session, for: id)
    }

    /// Gives the keys to `session` for asset `id`: `--key`'s required, the ring's as found.
    func hold(_ held: (given: HeldKeys, ring: HeldKeys), in session: DownloadSession, for id: String) async throws(CarryonError) {
        try await session.hold(held.given, for: id)
        try await session.hold(held.ring, for: id, requiringUse: false)
    }

    /// Every key given, for a process that plans later (the fleet's worker).
    func all(_ held: (given: HeldKeys, ring: HeldKeys)) throws(CarryonError) -> HeldKeys {
        try held.given.merging(held.ring)
    }
}
