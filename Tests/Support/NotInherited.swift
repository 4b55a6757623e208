import Foundation

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
