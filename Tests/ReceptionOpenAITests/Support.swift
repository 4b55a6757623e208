import Foundation
import ReceptionCore
import ReceptionOpenAI
import ReceptionReferenceServers
import ReceptionTesting
import Testing

/// Starts the reference server on 127.0.0.1 and a backend for it; both stop afterwards.
func withOpenAIServer<T: Sendable>(_ options: OpenAIReferenceOptions = OpenAIReferenceOptions(port: 0),
                                   configure: (inout OpenAIConfiguration) -> Void = { _ in },
                                   _ body: (RunningOpenAIServer, OpenAIBackend) async throws -> T) async throws -> T {
    let server = try await RunningOpenAIServer.start(options)
    var configuration = OpenAIConfiguration(baseURL: server.baseURL, model: "reference-model",
                                            retry: .init(maxAttempts: 3, baseDelay: .milliseconds(50), maxDelay: .seconds(2)))
    configure(&configuration)
    let client = OpenAIClient(configuration: configuration)
    let backend = OpenAIBackend(client: client, model: configuration.model ?? "reference-model")
    do {
        let result = try await body(server, backend)
        await client.shutdown()
        await server.stop()
        return result
    } catch {
        await client.shutdown()
        await server.stop()
        throw error
    }
}

func streamedText(_ events: [BackendEvent]) -> String {
    events.compactMap { if case .textDelta(let text) = $0 { text } else { nil } }.joined()
}

func chunkCount(_ events: [BackendEvent]) -> Int {
    events.filter { if case .textDelta = $0 { true } else { false } }.count
}

/// The HTTP error a call threw, or nil.
func httpError(_ body: () async throws -> Void) async -> (status: Int, detail: String)? {
    do {
        try await body()
        return nil
    } catch BackendError.http(let status, let detail) {
        return (status, detail)
    } catch {
        return nil
    }
}
