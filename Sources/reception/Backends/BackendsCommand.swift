import ArgumentParser
import Foundation
import ReceptionConfiguration
import ReceptionCore
import ReceptionOpenAI

/// `reception backends`: the plugins, what their profiles may set, and the profiles configured.
struct BackendsCommand: ParsableCommand {
    /// Model servers on their usual local ports, looked at now (loopback, `GET /v1/models`
    /// only, 300 ms at most: this is not on the way to a prompt).
    func localServerLines(environment: PluginEnvironment, catalog: BackendCatalog) -> [String] {
        let places = LocalModelServers.places(environment)
        guard !places.isEmpty else { return ["Model servers on this machine: not looked for (RECEPTION_LOCAL_SERVERS is empty)."] }
        let found = LocalModelServers.probe(places, deadline: .milliseconds(300))
        var lines = ["Model servers on this machine (their usual ports; RECEPTION_LOCAL_SERVERS=name=port,… changes where to look):"]
        for place in places {
            let profile = catalog.entries.first { $0.profile.name == place.name }?.profile
            let replaced = profile?.kind != OpenAIPlugin.kind || profile?.string("url") != place.baseURL
            let state: String
            if replaced {
                state = "the name is taken by a profile of the configuration file"
            } else if let server = found.first(where: { $0.place == place }) {
                let models = server.models.prefix(6).joined(separator: ", ") + (server.models.count > 6 ? ", …" : "")
                state = "answering" + (models.isEmpty ? ", no model listed" : ": \(models)") + " (reception --backend \(place.name))"
            } else {
                state = "nothing answers"
            }
            // Model names come from the server: cleaned before printing.
            lines.append(TerminalText.clean("  \(place.name) (\(place.product)) \(place.baseURL): \(state)", singleLine: true))
        }
        return lines
    }

    static let configuration = CommandConfiguration(
        commandName: "backends",
        abstract: "List the backend kinds, their profile options and the configured profiles (and check the configuration file).",
        discussion: """
        Profiles live in $XDG_CONFIG_HOME/reception/backends.json (default ~/.config/reception/backends.json), \
        as {"profiles": [{"name": ..., "kind": ..., OPTIONS}]}. Secrets are never written there: an option of \
        type secret is given as NAME_env (an environment variable) or NAME_file (a file of mode 0600). \
        Exits with status 1 when the file has errors, each shown with its line and column.
        """)

    func run() throws {
        let environment = PluginEnvironment.standard()
        let path = BackendConfiguration.standardPath(environment)
        var lines: [String] = ["Backend kinds:"]
        for plugin in BackendPlugins.all {
            lines.append("")
            lines.append("  \(plugin.kind) — \(plugin.summary)")
            if !plugin.discussion.isEmpty { lines.append("    \(plugin.discussion)") }
            for option in plugin.options {
                let keys = option.keys.joined(separator: " | ")
                lines.append("    \(keys)\(option.required ? " (required)" : ""): \(option.help); \(option.expectation)")
            }
        }
        lines.append("")
        do {
            let catalog = try BackendSetup.catalog(environment: environment)
            lines.append("Profiles (\(FileManager.default.fileExists(atPath: path) ? path : "no file at \(path); built-in ones only")):")
            // The model servers' profiles are listed below, with whether they answer.
            let localServers = Set(LocalModelServers.profiles(environment))
            for entry in catalog.entries where !localServers.contains(entry.profile) {
                let origin = entry.profile.origin.map { " [\($0)]" } ?? " [built in]"
                // Names and values come from the configuration file: cleaned before printing.
                let (summary, problems) = entry.profile.summary(checkingSecretsIn: environment)
                lines.append(TerminalText.clean("  \(entry.profile.name) (\(entry.plugin.kind))\(summary.isEmpty ? "" : ": " + summary)\(origin)", singleLine: true))
                // Not an error of the file (the variable may be set in another shell): said, exit 0.
                for problem in problems { lines.append(TerminalText.clean("    warning: \(problem)", singleLine: true)) }
            }
            for notice in catalog.replacedBuiltIns { lines.append(TerminalText.clean("  note: \(notice)", singleLine: true)) }
            lines.append("")
            lines.append(contentsOf: localServerLines(environment: environment, catalog: catalog))
            print(lines.joined(separator: "\n"))
        } catch {
            print(lines.joined(separator: "\n"))
            StandardStreams.writeError("error: the configuration has problems:\n\(error)\n")
            throw ExitCode(1)
        }
    }
}
