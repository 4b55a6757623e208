import Foundation
import ReceptionCore
import ReceptionLoopSymphony
import ReceptionOpenAI
import ReceptionTesting

// reception-conformance: runs ReceptionTesting's BackendConformance against a live server,
// to check an adapter against the real engine (the test suite checks it against the
// reference server). Prints the report; exits 1 when a scenario failed.
//
//   swift run reception-conformance loop-symphony URL [API_KEY]
//   swift run reception-conformance openai BASE_URL MODEL      (key from $OPENAI_API_KEY)
//
// The Loop Symphony scenario messages follow the stand-ins of
// ../shared/upstream-servers/loop-symphony (research queries iterate, `slow` is slow,
// `stubfail` fails). A real language model has no scripted failure: the failing scenario
// asks for a prompt longer than a small model's context.

let arguments = Array(CommandLine.arguments.dropFirst())
let usage = "usage: reception-conformance loop-symphony URL [API_KEY]\n       reception-conformance openai BASE_URL MODEL\n"
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data(usage.utf8))
    exit(2)
}

let report: ConformanceReport
switch arguments[0] {
case "loop-symphony":
    let configuration = LoopSymphonyConfiguration(baseURL: arguments[1], apiKey: arguments.count > 2 ? arguments[2] : nil,
                                                  requestTimeout: .seconds(60))
    let client = LoopSymphonyClient(configuration: configuration)
    report = await BackendConformance(backend: LoopSymphonyBackend(client: client), scenarios: .init(
        answered: ReceptionRequest(text: "research the best trails near Portland", trustLevel: 1),
        slow: ReceptionRequest(text: "slow research of everything about rivers", trustLevel: 1),
        failing: ReceptionRequest(text: "stubfail this research please", trustLevel: 1),
        planned: ReceptionRequest(text: "research a plan first", trustLevel: 0),
        notApplicable: [
            "unusual": "the real server sends what it sends; the reference server's novelfields covers unknown fields",
            "dropped": "use ../shared/upstream-servers/loop-symphony/proxy.py --cut-after N in front of the server and point URL at it",
        ]), deadline: .seconds(90)).run()
    await client.shutdown()
case "openai" where arguments.count >= 3:
    let key = ProcessInfo.processInfo.environment["OPENAI_API_KEY"].flatMap { $0.isEmpty ? nil : $0 }
    var configuration = OpenAIConfiguration(baseURL: arguments[1], model: arguments[2], apiKey: key, maxTokens: 200)
    configuration.apiKeySource = "$OPENAI_API_KEY"
    let client = OpenAIClient(configuration: configuration)
    let tooLong = String(repeating: "Tell me about rivers and the sea. ", count: 1_500)
    report = await BackendConformance(backend: OpenAIBackend(client: client, model: arguments[2]), scenarios: .init(
        answered: ReceptionRequest(text: "Say hello in one short sentence.", trustLevel: 1),
        slow: ReceptionRequest(text: "Write a long story about a river, in many paragraphs.", trustLevel: 1),
        failing: ReceptionRequest(text: tooLong, trustLevel: 1),
        notApplicable: [
            "unusual": "the real server sends what it sends",
            "dropped": "needs a proxy that cuts the connection",
            "planned": "a chat model answers at once; it has no plans to approve",
        ]), deadline: .seconds(180)).run()
    await client.shutdown()
default:
    FileHandle.standardError.write(Data(usage.utf8))
    exit(2)
}
print(report)
exit(report.failures.isEmpty ? 0 : 1)
