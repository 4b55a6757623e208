import Foundation

/// Writes to standard output or error without ever stopping the program.
///
/// `FileHandle.write(_: Data)` traps (`try!` inside Foundation) when the write fails, and it
/// fails exactly when the terminal has gone: a closed window answers every write with EIO, so
/// the REPL crashed (SIGILL) on its way out instead of deregistering its room and exiting.
/// Output nobody can read any more is dropped; short writes are continued.
public enum StandardStreams {
    public static func write(_ text: String, to descriptor: Int32 = STDOUT_FILENO) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written > 0 { offset += written; continue }
            if written < 0 && errno == EINTR { continue }
            return  // EIO (the terminal hung up), EPIPE, EBADF: nobody reads it any more
        }
        bytes.removeAll()
    }

    /// Writes to standard error after what `print` has buffered for standard output: in a
    /// file or a CI log, a summary on standard error came before the lines it summed up.
    public static func writeError(_ text: String) {
        fflush(nil)
        write(text, to: STDERR_FILENO)
    }
}
