import ReceptionCore

extension LocalEngine {
    /// A conversation carried on from an earlier session (`reception -c`) arrives with its
    /// turns but not this engine's memory: "tell me more" had no topic, searched its own
    /// words and found nothing. The last question and the turns after it are replayed once,
    /// in order: a turn whose answer this engine would give word for word (the same
    /// knowledge, the same question) counts as said, and the question becomes the topic. An answer another backend
    /// gave is not replayed as said; its question still names the topic.
    func carryOn(_ conversation: [ConversationTurn]) {
        guard !carriedOn else { return }
        carriedOn = true
        guard memory.lastTopic == nil, memory.saidPassages.isEmpty else { return }
        // From the last question asked on: what it said and the "tell me more"s after it are
        // all the topic needs, and each replayed turn is a search (on a large notes folder, a
        // noticeable part of a second), so nothing before it is replayed.
        let recent = conversation.suffix(Self.turnsReplayed)
        guard let start = recent.lastIndex(where: { turn in
            !(turn.summary ?? "").isEmpty && Answerer.greeting(turn.query) == nil && !MoreRequest.asksForMore(turn.query)
        }) else { return }
        for turn in recent[start...] {
            guard let said = turn.summary, !said.isEmpty, Answerer.greeting(turn.query) == nil else { continue }
            let more = MoreRequest.asksForMore(turn.query)
            guard let query = more ? memory.lastTopic : turn.query else { continue }
            let matches = search(turn.query)
            let composed = compose(query: query, matches: matches)
            if composed.summary == said {
                memory.saidPassages.formUnion(composed.usedPassages)
                if !more, composed.answered, composed.outcome != .inconclusive { memory.lastTopic = turn.query }
            } else if !more, turn.outcome != .inconclusive {
                memory.lastTopic = turn.query
            }
        }
    }

    /// The most turns looked at: a run of "tell me more" after the question is replayed whole.
    static let turnsReplayed = 50
}
