import Synchronization

/// Whether the certificates of TLS servers are verified: always, unless the person asked
/// otherwise with `--insecure`. One process-wide switch, set once at start before any
/// connection is made (as swift-log's `LoggingSystem.bootstrap` is), and read by every
/// transport, so no adapter can forget it and no profile can turn it off quietly.
public enum TLSVerification {
    private static let verifying = Atomic<Bool>(true)

    /// Call once, at start, before the first connection.
    public static func bootstrap(verifyingCertificates: Bool) {
        verifying.store(verifyingCertificates, ordering: .sequentiallyConsistent)
    }

    /// True unless `--insecure` turned verification off.
    public static var isVerifying: Bool { verifying.load(ordering: .sequentiallyConsistent) }
}
