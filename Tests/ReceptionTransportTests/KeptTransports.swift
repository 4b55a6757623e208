import ReceptionTransport
import Synchronization

/// A transport for a test, kept until the test process ends. A test that fails by throwing
/// before its `shutdown()` would otherwise release a client that was never shut down, which
/// AsyncHTTPClient answers, in a debug build, by stopping the whole test process: one test's
/// failure (a timeout on a loaded machine) took every other test's result with it.
func keptTransport(_ configuration: HTTPTransportConfiguration) -> HTTPTransport {
    let transport = HTTPTransport(configuration: configuration)
    keptTransports.withLock { $0.append(transport) }
    return transport
}

private let keptTransports = Mutex<[HTTPTransport]>([])
