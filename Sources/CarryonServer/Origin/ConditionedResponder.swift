import Foundation
import Hummingbird
import NIOCore

/// The request context of the origin: Hummingbird's, plus the connection, which a fault has to
/// reach to reset or close it.
struct OriginRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// Answers each request the way the link profile says — after its latency, with the fault
/// drawn for it, at its bandwidth — and logs it.
struct ConditionedResponder: HTTPResponder {
    let files: FileResponder
    let profile: LinkProfile
    let faults: FaultSchedule
    let log: RequestLog
    private let clock = ContinuousClock()

    init(files: FileResponder, profile: LinkProfile, log: RequestLog) {
        self.files = files
        self.profile = profile
        self.faults = FaultSchedule(profile: profile)
        self.log = log
    }

    func respond(to request: Request, context: OriginRequestContext) async throws -> Response {
        let arrival = clock.now
        // Drawn on arrival, before any suspension, so that the draw order is the arrival order.
        let draw = faults.next()
        let record = log.begin(OriginRequest(
            sequence: draw.sequence, method: request.method.rawValue, path: request.uri.path,
            range: request.headers[.range], status: 0,
            headers: request.headers.reduce(into: [:]) { fields, field in
                let name = field.name.canonicalName
                fields[name] = fields[name].map { $0 + ", " + field.value } ?? field.value
            }))
        do {
            // A sleep on the clock suspends this request's task only: other connections carry on.
            if profile.latency > .zero { try await Task.sleep(until: arrival + profile.latency, clock: clock) }
            let fault = profile.faultsOnPlaylists || !MediaTypes.isPlaylist(path: request.uri.path.removingPercentEncoding ?? request.uri.path) ? draw.fault : nil
            if fault == .serviceUnavailable {
                let response = serviceUnavailable(includeBody: request.method != .head)
                record.finish { entry in
                    entry.status = 503
                    entry.contentLength = response.headers[.contentLength].flatMap { Int($0) }
                    entry.bytesSent = response.body.contentLength ?? 0
                    entry.fault = .serviceUnavailable
                }
                return response
            }
            let response: Response = switch request.method {
            case .get: try await files.respond(to: request, context: context, includeBody: true)
            case .head: try await files.respond(to: request, context: context, includeBody: false)
            default: Response(status: .methodNotAllowed, headers: [.allow: "GET, HEAD", .contentLength: "0"])
            }
            let length = response.body.contentLength ?? 0
            record.update { entry in
                entry.status = response.status.code
                entry.contentLength = response.headers[.contentLength].flatMap { Int($0) }
            }
            guard length > 0 else {
                record.finish()
                return response
            }
            let cut: ConditionedBodyWriter.Cut? =
                switch (fault, response.status) {
                case (.connectionReset?, .ok), (.connectionReset?, .partialContent),
                     (.truncatedBody?, .ok), (.truncatedBody?, .partialContent):
                    .init(fault: fault!, after: draw.cutPoint(forBodyOf: length))
                default: nil
                }
            return conditioned(response, length: length, cut: cut, channel: context.channel, record: record)
        } catch {
            record.finish { $0.status = Int((error as? HTTPError)?.status.code ?? 500) }
            throw error
        }
    }

    private func conditioned(
        _ response: Response, length: Int, cut: ConditionedBodyWriter.Cut?, channel: any Channel, record: RequestRecord
    ) -> Response {
        let body = response.body
        let bandwidth = profile.bandwidth
        var response = response
        response.body = ResponseBody(contentLength: length) { writer in
            // The record is finished here whatever happens; if Hummingbird drops the body
            // unwritten, releasing the record finishes it.
            defer { record.finish() }
            try await body.write(ConditionedBodyWriter(
                parent: writer, bandwidth: bandwidth, cut: cut, channel: channel, record: record))
        }
        return response
    }

    private func serviceUnavailable(includeBody: Bool) -> Response {
        let text = "503 Service Unavailable: a fault injected by carryon origin; retry after \(profile.retryAfterSeconds) s\n"
        var headers: HTTPFields = [
            .retryAfter: String(profile.retryAfterSeconds),
            .contentType: "text/plain; charset=utf-8",
            .contentLength: String(text.utf8.count),
        ]
        headers[.cacheControl] = "no-store"
        return Response(status: .serviceUnavailable, headers: headers,
                        body: includeBody ? .init(byteBuffer: ByteBuffer(string: text)) : .init())
    }
}
