import Foundation

/// glibc's malloc tuning, which Swift's Glibc module does not import (`<malloc.h>`).
enum MallocArenas {
    /// `mallopt(M_ARENA_MAX, count)`, found at run time: a C library without it (not glibc)
    /// is left as it is.
    static func limit(to count: Int32) {
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let arenaMax: Int32 = -8  // M_ARENA_MAX in <malloc.h>
        _ = unsafeBitCast(symbol, to: Mallopt.self)(arenaMax, count)
    }
}
