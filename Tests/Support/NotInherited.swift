import Foundation

// Descriptors a test makes that processes other tests start must not inherit: a copy in a
// child keeps a pipe, a connection or a lock alive after the test lets it go.

extension Pipe {
    /// A pipe for a child process's standard stream whose own descriptors are not inherited
    /// by processes other tests start meanwhile. Foundation closes, in a child, only the
    /// descriptors open when it looked; one made on another thread just after stays open in
    /// that child for its whole life, and a copy of a write end there means the reader never
    /// sees its end of file (a hang, not a failure). The child that is given the pipe still
    /// gets it: it is duplicated onto 0, 1 or 2, and a duplicate does not keep the flag.
    public static func forChild() -> Pipe {
        let pipe = Pipe()
        for descriptor in [pipe.fileHandleForReading.fileDescriptor, pipe.fileHandleForWriting.fileDescriptor] {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        return pipe
    }
}

/// `accept` whose connection is not inherited by processes other tests start (Glibc's module
/// does not offer `accept4`): a copy in a child would keep the connection open after the test
/// closes it, where the test means the peer to see it reset or ended.
public func acceptNotInherited(_ listener: Int32) -> Int32 {
    let connection = accept(listener, nil, nil)
    if connection >= 0 { _ = fcntl(connection, F_SETFD, FD_CLOEXEC) }
    return connection
}
