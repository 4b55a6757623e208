import CFuzzerDriver
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `reception-fuzz TARGET [options] [corpus directories or files]`
///
/// Built by scripts/fuzz.sh with `-sanitize=fuzzer -DRECEPTION_LIBFUZZER`, the options and
/// directories are libFuzzer's (`-max_total_time=60 -timeout=1 ...`): coverage-guided fuzzing.
/// Built plainly (`swift build`), the same targets run under `RandomHarness`, which accepts
/// the common libFuzzer options so the command lines stay the same. See docs/fuzzing.md.
@main
enum ReceptionFuzz {
    static func main() {
        var arguments = CommandLine.arguments
        if arguments.count > 1, ["--list", "-list", "list"].contains(arguments[1]) {
            for target in fuzzTargets { print("\(target.name)\t\(target.summary)") }
            return
        }
        // The target is the first argument; libFuzzer's child processes (-fork, -jobs) are started
        // with the arguments libFuzzer saw, which no longer name it, so it is passed on in the environment.
        let name: String
        if arguments.count > 1, !arguments[1].hasPrefix("-"), fuzzTargets.contains(where: { $0.name == arguments[1] }) {
            name = arguments.remove(at: 1)
            setenv("RECEPTION_FUZZ_TARGET", name, 1)
        } else if let inherited = ProcessInfo.processInfo.environment["RECEPTION_FUZZ_TARGET"] {
            name = inherited
        } else {
            let names = fuzzTargets.map(\.name).joined(separator: ", ")
            FileHandle.standardError.write(Data("usage: reception-fuzz TARGET [options] [corpus...]\ntargets: \(names)\n".utf8))
            exit(2)
        }
        guard let target = fuzzTargets.first(where: { $0.name == name }) else {
            FileHandle.standardError.write(Data("reception-fuzz: no target \(name)\n".utf8))
            exit(2)
        }
        selectedTarget = target
        target.prepare()
        #if RECEPTION_LIBFUZZER
        exit(runLibFuzzer(arguments))
        #else
        exit(RandomHarness(target: target, arguments: Array(arguments.dropFirst())).run())
        #endif
    }
}

/// The target libFuzzer's callback calls: a C function pointer cannot capture it.
nonisolated(unsafe) var selectedTarget: FuzzTarget?

#if RECEPTION_LIBFUZZER
func runLibFuzzer(_ arguments: [String]) -> Int32 {
    // libFuzzer keeps pointers into argv for the whole run: the copies are never freed.
    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    var argc = Int32(arguments.count)
    return argv.withUnsafeMutableBufferPointer { buffer in
        var base: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = buffer.baseAddress
        return LLVMFuzzerRunDriver(&argc, &base) { data, size in
            let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
            selectedTarget!.run(bytes)
            return 0
        }
    }
}
#endif
