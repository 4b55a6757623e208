import Foundation
import ReceptionConfiguration
import ReceptionCore

/// Reads the configuration file and builds the catalog the REPL and `reception backends` use.
enum BackendSetup {
    static func catalog(environment: PluginEnvironment = .standard(), overrides: [BackendProfile] = []) throws -> BackendCatalog {
        let configuration = BackendConfiguration(path: BackendConfiguration.standardPath(environment), plugins: BackendPlugins.all)
        let profiles = try configuration.load()
        // Command-line options (e.g. --knowledge) win over a profile of the same name.
        let names = Set(overrides.map(\.name))
        return BackendCatalog(plugins: BackendPlugins.all, profiles: overrides + profiles.filter { !names.contains($0.name) },
                              environment: environment)
    }
}
