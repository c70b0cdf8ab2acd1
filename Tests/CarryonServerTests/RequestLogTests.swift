@testable import CarryonServer
import Testing

@Suite("RequestLog: what the origin remembers of its requests")
struct RequestLogTests {
    private func entry(_ sequence: Int) -> OriginRequest {
        OriginRequest(sequence: sequence, method: "GET", path: "/\(sequence).ts", status: 200)
    }

    @Test("requests come back in order of arrival, whatever order they finished in")
    func order() async {
        let log = RequestLog()
        let records = (0..<3).map { log.begin(entry($0)) }
        for record in records.reversed() { record.finish() }
        #expect(await log.requests().map(\.sequence) == [0, 1, 2])
    }

    @Test("requests() waits for the responses in flight when called, and counts their bytes")
    func waitsForResponsesInFlight() async {
        let log = RequestLog()
        let record = log.begin(entry(0))
        async let read = log.requests()
        record.update { $0.bytesSent = 100 }
        record.finish { $0.bytesSent = 200 }
        #expect(await read.map(\.bytesSent) == [200])
    }

    @Test("a record released unfinished finishes itself, so requests() does not wait forever")
    func releasedRecord() async {
        let log = RequestLog()
        do { _ = log.begin(entry(0)) }
        #expect(await log.requests().count == 1)
    }

    @Test("only the most recent requests are kept")
    func capacity() async {
        let log = RequestLog(capacity: 3)
        for sequence in 0..<5 { log.begin(entry(sequence)).finish() }
        #expect(await log.requests().map(\.sequence) == [2, 3, 4])
    }
}
