import Foundation

/// A copy of this process's descriptor open on `path`, as a child forked at that moment holds
/// one until its exec: what a file lock taken on the original must survive being released
/// under. Nil when no descriptor here is open on the file. The caller closes the copy.
public func copyOfOpenDescriptor(on path: String) -> Int32? {
    let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return nil }
    for descriptor in names.compactMap(Int32.init) {
        guard (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")) == resolved else { continue }
        let copy = dup(descriptor)
        return copy >= 0 ? copy : nil
    }
    return nil
}
