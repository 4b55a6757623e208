import Foundation
import ReceptionCore
import ReceptionTimepoint

/// `timepoint-session-probe --url URL --token-file PATH [--pause-at STAGE] signin EMAIL | me`
///
/// The real TIMEPOINT session code in a process of its own, for the tests that kill a
/// process in the middle of a refresh. `--pause-at STAGE` prints `PAUSED STAGE` when the
/// token file's write reaches that stage (`RefreshTokenFile.WriteStage`: answered,
/// temporary-created, temporary-written, replaced) and sleeps there, so the test can
/// SIGKILL it exactly there. Prints no token, ever. Exit status: 0 signed in, 3 asked to
/// sign in again, 1 anything else.
@main
struct TimepointSessionProbe {
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        func take(_ flag: String) -> String? {
            guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
            defer { arguments.removeSubrange(index...index + 1) }
            return arguments[index + 1]
        }
        let usage = "usage: timepoint-session-probe --url URL --token-file PATH [--pause-at STAGE] signin EMAIL | me\n"
        let pauseName = take("--pause-at")
        let pause = pauseName.flatMap(RefreshTokenFile.WriteStage.init(rawValue:))
        guard pauseName == nil || pause != nil, let url = take("--url"), let tokenFile = take("--token-file"), let command = arguments.first else {
            let stages = RefreshTokenFile.WriteStage.allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data((usage + "stages: \(stages)\n").utf8))
            exit(1)
        }
        let adminKey = ProcessInfo.processInfo.environment["TIMEPOINT_ADMIN_KEY"].map(SecretToken.init)
        let configuration = TimepointConfiguration(baseURL: url, tokenFile: tokenFile, adminKey: adminKey)
        let client = TimepointClient(configuration: configuration, atTokenWriteStage: { stage in
            guard stage == pause else { return }
            // Unbuffered, so the test reads it at once.
            FileHandle.standardOutput.write(Data("PAUSED \(stage.rawValue)\n".utf8))
            sleep(600)
        })
        var status: Int32 = 0
        do {
            switch command {
            case "signin" where arguments.count == 2:
                let user = try await client.signInDev(email: arguments[1])
                print("signed in as \(user.email ?? user.id)")
            case "me":
                let user = try await client.me()
                print("signed in as \(user.email ?? user.id)")
            default:
                print("unknown command \(command)")
                status = 1
            }
        } catch let error as TimepointError {
            if case .signInAgain(let reason) = error {
                print("sign in again: \(reason)")
                status = 3
            } else {
                print("error: \(error)")
                status = 1
            }
        } catch {
            print("error: \(error)")
            status = 1
        }
        await client.shutdown()
        exit(status)
    }
}
