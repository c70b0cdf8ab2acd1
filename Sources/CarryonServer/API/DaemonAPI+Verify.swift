import Carryon
import Foundation
import Hummingbird

/// `POST /api/assets/{id}/verify`: the bundle checked as `carryon verify` checks it, and mended
/// from the origin on request.
extension DaemonAPI {
    /// What the endpoint answers: the report, whether a repair started, and the asset.
    struct Verified: Encodable {
        var report: VerificationReport
        var repairing: Bool
        var asset: AssetSnapshot
    }

    /// `POST /api/assets/{id}/verify[?repair=true][&record=true]`: 200 and `{report, repairing:
    /// false, asset}`; with `repair` and damage found, damaged manifests are written again at
    /// once (with nothing else damaged, the answer is then 200, `repairing: false`), the repair
    /// starts (the damaged resources fetched again by the asset's download, which the events
    /// follow) and the answer is 202
    /// with `repairing: true`. What the repair cannot mend is recorded again as it was once the
    /// download stops; a later verify tells what is left.
    func verify(_ request: Request, task: DownloadTask) async throws -> Response {
        let repair = try Self.flag("repair", in: request)
        let record = try Self.flag("record", in: request)
        let report = try await session.verify(task.id, record: record)
        guard repair, !report.isIntact else {
            return try APIJSON.response(Verified(report: report, repairing: false, asset: try await task.snapshot()))
        }
        let begun = try await session.beginRepair(task.id, damage: report.damage, manifests: report.manifests)
        guard begun.fetches else {
            // Manifests alone, written already (or not, said by a later verify).
            _ = try await session.endRepair(begun)
            return try APIJSON.response(Verified(report: report, repairing: false, asset: try await task.snapshot()))
        }
        do {
            try await begun.task.resume()
        } catch {
            _ = try? await session.endRepair(begun)
            throw error
        }
        Task { [session] in
            _ = await begun.task.waitUntilFinished()
            _ = try? await session.endRepair(begun)
        }
        return try APIJSON.response(status: 202, Verified(report: report, repairing: true, asset: try await task.snapshot()))
    }

    /// A yes-or-no query parameter: absent, `false` or `0` is no; `true`, `1` or empty is yes.
    static func flag(_ name: String, in request: Request) throws(APIError) -> Bool {
        switch request.uri.queryParameters.get(name) {
        case nil, "false", "0": return false
        case "true", "1", "": return true
        case let value?: throw APIError(400, "bad-request", "\(name)=\(value) is not true or false")
        }
    }

    /// What `GET /api/verification` answers: the library's last check and the schedule.
    struct VerificationState: Encodable {
        /// The last check the library records (by this daemon or an earlier one), or nil.
        var last: LibraryVerification?
        /// Seconds between checks; nil when this daemon does not check (no `--verify-daily`).
        var everySeconds: Int64?
        /// When the next check is due; nil without a schedule.
        var nextAt: Date?

        func encode(to encoder: any Encoder) throws {
            // The nulls written out: a client tells "never checked" from a field it missed.
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(last, forKey: .last)
            try container.encode(everySeconds, forKey: .everySeconds)
            try container.encode(nextAt, forKey: .nextAt)
        }

        enum CodingKeys: String, CodingKey { case last, everySeconds, nextAt }
    }

    /// `GET /api/verification`: the last check and, with a schedule, when the next is due.
    func verificationState() -> VerificationState {
        let last = LibraryVerification.last(in: session.library)
        guard let interval = verificationInterval else { return VerificationState(last: last) }
        return VerificationState(last: last, everySeconds: interval.components.seconds,
                                 nextAt: last?.nextAt(every: interval) ?? Date())
    }
}
