import Foundation
import ReceptionCore
import ReceptionLoopSymphony
import ReceptionTesting

// reception-conformance: runs ReceptionTesting's BackendConformance against a live server,
// to check an adapter against the real engine (the test suite checks it against the
// reference server). Prints the report; exits 1 when a scenario failed.
//
//   swift run reception-conformance loop-symphony URL [API_KEY]
//
// The scenario messages follow the stand-ins of ../shared/upstream-servers/loop-symphony
// (research queries iterate, `slow` is slow, `stubfail` fails).

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2, arguments[0] == "loop-symphony" else {
    FileHandle.standardError.write(Data("usage: reception-conformance loop-symphony URL [API_KEY]\n".utf8))
    exit(2)
}
let configuration = LoopSymphonyConfiguration(baseURL: arguments[1], apiKey: arguments.count > 2 ? arguments[2] : nil,
                                              requestTimeout: .seconds(60))
let client = LoopSymphonyClient(configuration: configuration)
let backend = LoopSymphonyBackend(client: client)
let report = await BackendConformance(backend: backend, scenarios: .init(
    answered: ReceptionRequest(text: "research the best trails near Portland", trustLevel: 1),
    slow: ReceptionRequest(text: "slow research of everything about rivers", trustLevel: 1),
    failing: ReceptionRequest(text: "stubfail this research please", trustLevel: 1),
    planned: ReceptionRequest(text: "research a plan first", trustLevel: 0),
    notApplicable: [
        "unusual": "the real server sends what it sends; the reference server's novelfields covers unknown fields",
        "dropped": "use ../shared/upstream-servers/loop-symphony/proxy.py --cut-after N in front of the server and point URL at it",
    ]), deadline: .seconds(90)).run()
await client.shutdown()
print(report)
exit(report.failures.isEmpty ? 0 : 1)
