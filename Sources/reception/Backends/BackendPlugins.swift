import ReceptionCodex
import ReceptionCore
import ReceptionFriday
import ReceptionLocal
import ReceptionLoomi
import ReceptionLoopSymphony
import ReceptionOpenAI
import ReceptionTimepoint

/// The backend plugins this executable offers, as a root command lists its subcommands.
/// Adding an adapter: its module, one line in Package.swift, one line here.
enum BackendPlugins {
    static let all: [BackendPlugin] = [
        LocalPlugin.plugin,
        LoopSymphonyPlugin.plugin,
        OpenAIPlugin.plugin,
        FridayPlugin.plugin,
        CodexPlugin.plugin,
        LoomiPlugin.plugin,
        TimepointPlugin.plugin,
    ]
}
