/// A unit of output for people, already in the soul's voice.
///
/// The renderer (soul module) produces blocks; front ends (the REPL, a chat UI) decide how
/// to draw them: styled Markdown on a terminal, plain text in a pipe, JSON for machines.
public struct DisplayBlock: Sendable, Hashable, Codable {
    public enum Role: String, Sendable, Hashable, Codable {
        case greeting, summary, finding, discrepancy, intervention, followups, plan, progress, note, error, signoff, text
    }

    public var role: Role
    /// A heading or card label, e.g. "Heads-up" for a proactive intervention.
    public var title: String?
    /// The body, as Markdown.
    public var markdown: String
    /// List items: numbered follow-ups, plan steps.
    public var items: [String]
    public var interventionType: InterventionType?

    public init(role: Role, title: String? = nil, markdown: String = "", items: [String] = [], interventionType: InterventionType? = nil) {
        self.role = role
        self.title = title
        self.markdown = markdown
        self.items = items
        self.interventionType = interventionType
    }
}
