import Foundation
import ReceptionCore

/// A personality read from a soul.md file: the knobs a renderer needs, and the persona prose.
public struct Soul: Sendable, Hashable {
    public var name: String
    public var sourcePath: String?
    public var greeting: String?
    public var signOff: String?
    /// Intro line per outcome (`complete`, `saturated`, `bounded`, `inconclusive`).
    public var outcomeFraming: [String: String]
    /// Card label per intervention type.
    public var interventionLabels: [String: String]
    public var followupsTitle: String
    /// Word replacements applied to prose: avoid → prefer.
    public var vocabulary: [String: String]
    /// The Markdown body: the persona in prose.
    public var body: String

    public init(name: String, sourcePath: String? = nil, greeting: String? = nil, signOff: String? = nil,
                outcomeFraming: [String: String] = [:], interventionLabels: [String: String] = [:],
                followupsTitle: String = "You could ask next", vocabulary: [String: String] = [:], body: String = "") {
        self.name = name
        self.sourcePath = sourcePath
        self.greeting = greeting
        self.signOff = signOff
        self.outcomeFraming = outcomeFraming
        self.interventionLabels = interventionLabels
        self.followupsTitle = followupsTitle
        self.vocabulary = vocabulary
        self.body = body
    }

    /// A neutral voice used when no soul file can be found, so the REPL always starts.
    public static let plain = Soul(name: "plain", body: "# plain\n\nNeutral, direct, no flourishes.")
}
