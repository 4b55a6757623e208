import ArgumentParser
import Foundation
import ReceptionReferenceServers

/// `reception-reference-server friday --port P` (also `reception serve friday ...`).
struct ServeFridayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "friday",
        abstract: "A Friday server (WebSocket at /ws) with scripted, deterministic answers.",
        discussion: """
        Sends what the real `friday serve` (tryfridayai/friday_cli at adc5427) sends: ready, info, a \
        server-issued session, text chunks (a word split across two), tool use, numbered permission \
        questions, complete; a failed run sends error twice and no complete; some runs end in silence. \
        Words in the question pick the answer: "write"/"save"/"file"/"note" ask permission to write a \
        file, "sudo" is blocked, "code" adds a rule prompt, "unusual" sends unknown frames, "apierror", \
        "maxturns" (silence), "stubfail" or "please fail" (error), "disconnect"/"drop" (the socket closes \
        mid-answer), "slow". A question sent with a session id this server issued is answered as the \
        next turn of that conversation.
        Point Reception at it with: reception --backend friday (FRIDAY_URL defaults to ws://127.0.0.1:8787/ws).
        """)

    @Option(name: .long, help: "Port on 127.0.0.1 (0 picks a free one).")
    var port = 8787

    @Option(name: .customLong("step-ms"), help: ArgumentHelp("Pause between two frames, in milliseconds.", valueName: "ms"))
    var stepMilliseconds = 60

    @Option(name: .customLong("slow-ms"), help: ArgumentHelp("Pause between two frames of a \"slow\" answer, in milliseconds.", valueName: "ms"))
    var slowMilliseconds = 1500

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        guard stepMilliseconds >= 0, slowMilliseconds >= 0 else { throw ValidationError("pauses cannot be negative") }
    }

    func run() async throws {
        let server = FridayReferenceServer(options: FridayReferenceOptions(
            port: port, stepDelay: .milliseconds(stepMilliseconds), slowDelay: .milliseconds(slowMilliseconds)))
        try await server.run { port in
            FileHandle.standardOutput.write(Data("Friday reference server on ws://127.0.0.1:\(port)/ws  (Ctrl-C to stop)\n".utf8))
        }
    }
}
