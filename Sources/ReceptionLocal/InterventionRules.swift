import Foundation
import ReceptionCore

/// When the local backend adds interventions (before trust-level gating):
/// - pushback: a short request with a broad cue ("everything", "tell me about"), or matches
///   spread evenly over many passages;
/// - scoping: several questions in one message;
/// - education: a REPL feature this session has not used yet (one tip per task, each once,
///   at trust level 0, the only level that shows them);
/// - proactive: a topic that went unanswered before comes back unanswered again.
enum InterventionRules {
    static let broadCues = ["everything", "anything", "all about", "tell me about", "overview", "in general", "whatever"]

    static func evaluate(query: String, matches: [KnowledgeBase.Match], answered: Bool,
                         memory: inout SessionMemory, usesBuiltInKnowledge: Bool, trustLevel: Int) -> [Intervention] {
        var result: [Intervention] = []
        let lowered = query.lowercased()
        let terms = Set(KnowledgeBase.terms(query))

        let flat = matches.count >= 5 && matches[0].score < 1.25 * matches[4].score
        if (terms.count <= 3 && broadCues.contains(where: lowered.contains)) || flat {
            result.append(Intervention(type: .pushback,
                message: "This request is very broad. Name the part you care about (a feature, a command, a problem) for a sharper answer."))
        }

        let questionMarks = query.filter { $0 == "?" }.count
        let joinedQuestions = lowered.components(separatedBy: " and ").count > 1 &&
            ["how", "what", "why", "which", "can", "does", "should"].filter { lowered.contains("\($0) ") }.count >= 2
        if questionMarks >= 2 || joinedQuestions || lowered.contains(" and also ") {
            result.append(Intervention(type: .scoping,
                message: "This asks several things at once. Send them one at a time and each part gets a full answer."))
        }

        if !answered {
            let recurring = memory.unansweredTopics.contains { jaccard($0, terms) >= 0.4 }
            let alreadyFlagged = memory.proactiveTopics.contains { jaccard($0, terms) >= 0.4 }
            if recurring && !alreadyFlagged && !terms.isEmpty {
                memory.proactiveTopics.append(terms)
                result.append(Intervention(type: .proactive,
                    message: "You have asked about this before without a good answer here. Connect a backend that covers it (/backend), or add a note on it to a knowledge folder (--knowledge DIR)."))
            }
        }

        // A tip is shown at trust level 0 only (Loop Symphony's gating), so it is given, and
        // used up, only there: one given at level 1 was never seen. Plans need no tip there:
        // the person meets them on the next question ("/trust 0 shows the backend's plan"
        // came just after they typed /trust 0).
        let tips: [(String, Bool, String)] = [
            ("followups", !memory.usedFollowup && !memory.offeredFollowups.isEmpty,
             "/followups lists suggested questions; type a number to send one."),
            ("knowledge", usesBuiltInKnowledge, "Point the local backend at your own notes with reception --knowledge DIR."),
        ]
        if trustLevel <= 0, let tip = tips.first(where: { $0.1 && !memory.tipsGiven.contains($0.0) }) {
            memory.tipsGiven.insert(tip.0)
            result.append(Intervention(type: .education, message: tip.2))
        }
        return result
    }

    static func jaccard(_ a: Set<String>, _ b: Set<String>) -> Double {
        let union = a.union(b).count
        return union == 0 ? 0 : Double(a.intersection(b).count) / Double(union)
    }
}
