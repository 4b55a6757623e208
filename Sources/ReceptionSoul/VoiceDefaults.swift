import ReceptionCore

/// The renderer's own wording for what a soul leaves unset, in the soul's language and
/// register: a German persona frames its answers in German, a casual one says "Here's the
/// best I've got", a formal one "This is the most complete answer available". English at a
/// neutral register is exactly `DefaultVoice`, so souls that set their knobs see no change.
///
/// The engine's own text is never translated or rephrased here (facts stay byte for byte);
/// only the framing around it, and the contractions a register implies.
enum VoiceDefaults {
    struct Wording {
        var outcomes: [Outcome: OutcomeStyle]
        var medium: String
        var low: String
        var findings: String
        var discrepancy: String
        var followups: String
        var interventions: [InterventionType: String]
    }

    /// The wording for a language and register; nil means `DefaultVoice` (English, neutral).
    static func wording(language: String, formality: Formality) -> Wording? {
        let base = language.split(separator: "-").first.map { String($0).lowercased() } ?? "en"
        switch base {
        case "de":
            return formality == .casual ? german(casual: true) : german(casual: false)
        case "ja":
            return formality == .casual ? japanese(casual: true) : japanese(casual: false)
        case "fr": return formality == .casual ? frenchFamiliar : french
        case "es": return spanish
        case "pt": return portuguese
        case "zh": return chinese(traditional: language.lowercased().hasSuffix("tw") || language.lowercased().hasSuffix("hk") || language.lowercased().hasSuffix("hant"))
        case "en":
            switch formality {
            case .neutral: return nil
            case .casual: return englishCasual
            case .formal: return englishFormal
            }
        default: return nil
        }
    }

    static let englishCasual = Wording(
        outcomes: [.complete: OutcomeStyle(lead: ""),
                   .saturated: OutcomeStyle(lead: "Here's the best I've got.", note: "Digging more won't change much."),
                   .bounded: OutcomeStyle(lead: "Got partway there before I ran out of road.", note: "Want me to keep going? Just say continue."),
                   .inconclusive: OutcomeStyle(lead: "Heads up, the sources don't agree.", note: "Pick one of these and I'll dig in.")],
        medium: "Pretty sure, not 100%.", low: "Take this with a grain of salt.",
        findings: "What I dug up", discrepancy: "Where they clash", followups: "Could ask next",
        interventions: [.proactive: "Quick heads-up", .pushback: "Hang on", .scoping: "Let's break this up", .education: "Fun fact"])

    static let englishFormal = Wording(
        outcomes: [.complete: OutcomeStyle(lead: ""),
                   .saturated: OutcomeStyle(lead: "This is the most complete answer available.", note: "Further enquiry is unlikely to alter it."),
                   .bounded: OutcomeStyle(lead: "The following answer is partial: the limits of this enquiry were reached before it was complete.",
                                          note: "Should you wish, I shall continue."),
                   .inconclusive: OutcomeStyle(lead: "The available evidence is not consistent.", note: "Any of the following questions may resolve the matter.")],
        medium: "I am reasonably, though not entirely, confident of this.", low: "This should be regarded as provisional.",
        findings: "Findings", discrepancy: "Points of disagreement between the sources", followups: "Further questions you may wish to ask",
        interventions: [.proactive: "A note for your attention", .pushback: "May I suggest a narrower question", .scoping: "This request has several parts", .education: "For your information"])

    static func german(casual: Bool) -> Wording {
        Wording(
            outcomes: [.complete: OutcomeStyle(lead: ""),
                       .saturated: OutcomeStyle(lead: casual ? "Mehr ist gerade nicht drin." : "Das ist die beste verfügbare Antwort.",
                                                note: casual ? "Weitersuchen bringt vermutlich nichts Neues." : "Weitere Recherche wird daran kaum etwas ändern."),
                       .bounded: OutcomeStyle(lead: casual ? "Nur ein Teil: Ich bin an meine Grenzen gestoßen." : "Eine Teilantwort: Ich habe meine Grenzen vor dem Ende erreicht.",
                                              note: casual ? "Soll ich weitermachen? Sag einfach „weiter“." : "Soll ich fortfahren? Bitten Sie mich einfach darum."),
                       .inconclusive: OutcomeStyle(lead: casual ? "Die Quellen widersprechen sich." : "Die Quellenlage ist widersprüchlich.",
                                                   note: casual ? "Such dir eine der Fragen unten aus, dann kläre ich das." : "Eine der folgenden Fragen könnte das klären.")],
            medium: casual ? "Ziemlich sicher, aber nicht ganz." : "Ich bin mir ziemlich, aber nicht völlig sicher.",
            low: casual ? "Nimm das mit Vorsicht." : "Bitte betrachten Sie das als vorläufig.",
            findings: "Was ich gefunden habe", discrepancy: "Wo sich die Quellen widersprechen",
            followups: casual ? "Du könntest als Nächstes fragen" : "Mögliche nächste Fragen",
            interventions: [.proactive: "Ein Hinweis", .pushback: casual ? "Geht's genauer?" : "Könnten wir das eingrenzen?",
                            .scoping: "Das hat mehrere Teile", .education: casual ? "Gut zu wissen" : "Wissenswertes"])
    }

    static func japanese(casual: Bool) -> Wording {
        Wording(
            outcomes: [.complete: OutcomeStyle(lead: ""),
                       .saturated: OutcomeStyle(lead: casual ? "今わかるのはここまで。" : "現時点で得られる最善の回答です。",
                                                note: casual ? "これ以上調べても大きくは変わらなさそう。" : "これ以上調べても結果が変わる可能性は低いです。"),
                       .bounded: OutcomeStyle(lead: casual ? "途中までだけど、ここまでわかったよ。" : "途中までの回答です。上限に達したため、最後まで調べきれませんでした。",
                                              note: casual ? "続ける？「続けて」って言ってね。" : "続けてよろしければ、「続けて」とお伝えください。"),
                       .inconclusive: OutcomeStyle(lead: casual ? "情報源の言うことが食い違ってる。" : "情報源の間で内容が食い違っています。",
                                                   note: casual ? "下の質問からひとつ選んでくれたら確かめるね。" : "以下の質問のいずれかで確認できるかもしれません。")],
            medium: casual ? "たぶん合ってるけど、100%じゃない。" : "おそらく正しいと思いますが、確実ではありません。",
            low: casual ? "まだ仮の話として聞いてね。" : "暫定的な情報としてお受け取りください。",
            findings: casual ? "わかったこと" : "調べた結果", discrepancy: casual ? "食い違ってるところ" : "情報源の相違点",
            followups: casual ? "次に聞けること" : "次のご質問の候補",
            interventions: [.proactive: casual ? "ちょっとお知らせ" : "お知らせ", .pushback: casual ? "もう少し絞れる？" : "範囲を絞ってもよろしいでしょうか",
                            .scoping: casual ? "いくつかに分かれるよ" : "いくつかの部分に分かれます", .education: casual ? "豆知識" : "ご参考までに"])
    }

    static let french = Wording(
        outcomes: [.complete: OutcomeStyle(lead: ""),
                   .saturated: OutcomeStyle(lead: "C'est la meilleure réponse disponible.", note: "Chercher plus loin ne devrait rien changer."),
                   .bounded: OutcomeStyle(lead: "Une réponse partielle : j'ai atteint mes limites avant la fin.", note: "Voulez-vous que je continue ? Demandez-le-moi."),
                   .inconclusive: OutcomeStyle(lead: "Les sources se contredisent.", note: "Une des questions ci-dessous pourrait trancher.")],
        medium: "J'en suis assez sûr, sans l'être tout à fait.", low: "À prendre avec précaution.",
        findings: "Ce que j'ai trouvé", discrepancy: "Où les sources divergent", followups: "Vous pourriez demander ensuite",
        interventions: [.proactive: "À noter", .pushback: "Pourrait-on préciser ?", .scoping: "Cela comporte plusieurs parties", .education: "Bon à savoir"])

    /// The same in the familiar register ("Tutoie la personne"): tu, not vous.
    static let frenchFamiliar: Wording = {
        var wording = french
        wording.outcomes[.bounded] = OutcomeStyle(lead: "Une réponse partielle : j'ai atteint mes limites avant la fin.",
                                                  note: "Tu veux que je continue ? Demande-le-moi.")
        wording.followups = "Tu pourrais demander ensuite"
        wording.interventions[.pushback] = "On peut préciser ?"
        return wording
    }()

    static let spanish = Wording(
        outcomes: [.complete: OutcomeStyle(lead: ""),
                   .saturated: OutcomeStyle(lead: "Es la mejor respuesta disponible.", note: "Seguir buscando probablemente no la cambie."),
                   .bounded: OutcomeStyle(lead: "Una respuesta parcial: llegué a mis límites antes de terminar.", note: "¿Sigo? Pídemelo y continúo."),
                   .inconclusive: OutcomeStyle(lead: "Las fuentes no coinciden.", note: "Alguna de las preguntas de abajo podría aclararlo.")],
        medium: "Estoy bastante seguro, aunque no del todo.", low: "Tómalo como provisional.",
        findings: "Lo que encontré", discrepancy: "Dónde discrepan las fuentes", followups: "Podrías preguntar después",
        interventions: [.proactive: "Un aviso", .pushback: "¿Podemos acotarlo?", .scoping: "Esto tiene varias partes", .education: "Algo útil"])

    /// Words that read the same in Brazil and in Portugal (no "você" or "tu").
    static let portuguese = Wording(
        outcomes: [.complete: OutcomeStyle(lead: ""),
                   .saturated: OutcomeStyle(lead: "Esta é a melhor resposta disponível.", note: "Procurar mais dificilmente a mudará."),
                   .bounded: OutcomeStyle(lead: "Uma resposta parcial: cheguei aos meus limites antes de terminar.", note: "Quer que eu continue? É só pedir."),
                   .inconclusive: OutcomeStyle(lead: "As fontes não concordam.", note: "Uma das perguntas abaixo pode esclarecer isso.")],
        medium: "Tenho bastante certeza, mas não total.", low: "Considere isto provisório.",
        findings: "O que encontrei", discrepancy: "Onde as fontes divergem", followups: "Perguntas que poderia fazer a seguir",
        interventions: [.proactive: "Um aviso", .pushback: "Podemos delimitar melhor?", .scoping: "Isto tem várias partes", .education: "É bom saber"])

    static func chinese(traditional: Bool) -> Wording {
        func t(_ simplified: String, _ traditionalText: String) -> String { traditional ? traditionalText : simplified }
        return Wording(
            outcomes: [.complete: OutcomeStyle(lead: ""),
                       .saturated: OutcomeStyle(lead: t("这是目前能给出的最佳答案。", "這是目前能給出的最佳答案。"), note: t("继续查下去大概也不会改变结论。", "繼續查下去大概也不會改變結論。")),
                       .bounded: OutcomeStyle(lead: t("只是部分答案：还没查完就到了上限。", "只是部分答案：還沒查完就到了上限。"), note: t("要我继续吗？说一声就好。", "要我繼續嗎？說一聲就好。")),
                       .inconclusive: OutcomeStyle(lead: t("各来源说法不一。", "各來源說法不一。"), note: t("选下面一个问题，我来确认。", "選下面一個問題，我來確認。"))],
            medium: t("我比较有把握，但不是完全确定。", "我比較有把握，但不是完全確定。"), low: t("这只是初步结论。", "這只是初步結論。"),
            findings: t("我查到的", "我查到的"), discrepancy: t("来源的分歧", "來源的分歧"), followups: t("接下来可以问", "接下來可以問"),
            interventions: [.proactive: t("提醒一下", "提醒一下"), .pushback: t("能缩小范围吗？", "能縮小範圍嗎？"),
                            .scoping: t("这件事分几部分", "這件事分幾部分"), .education: t("小知识", "小知識")])
    }

    /// How the note about what a length limit cut is said: its template and the counted parts.
    struct LeftOutWords: Sendable {
        var template: String
        var sentences: @Sendable (Int) -> String
        var findings: @Sendable (Int) -> String
        var followups: @Sendable (Int) -> String
        var comma = ", "
        var and: String

        static let english = LeftOutWords(
            template: DefaultVoice.omittedNote,
            sentences: { "\($0) \($0 == 1 ? "sentence" : "sentences") of the summary" },
            findings: { "\($0) \($0 == 1 ? "finding" : "findings")" },
            followups: { "\($0) \($0 == 1 ? "follow-up" : "follow-ups")" }, and: " and ")
    }

    /// The left-out note's words for a language (English for one it does not know).
    static func leftOutWords(language: String) -> LeftOutWords {
        let lowered = language.lowercased()
        switch lowered.split(separator: "-").first.map(String.init) ?? "en" {
        case "de":
            return LeftOutWords(template: "Der Kürze halber weggelassen: {left_out}.",
                                sentences: { "\($0) \($0 == 1 ? "Satz" : "Sätze") der Zusammenfassung" },
                                findings: { "\($0) \($0 == 1 ? "Fund" : "Funde")" },
                                followups: { "\($0) \($0 == 1 ? "Anschlussfrage" : "Anschlussfragen")" }, and: " und ")
        case "fr":
            return LeftOutWords(template: "Omis par souci de concision : {left_out}.",
                                sentences: { "\($0) \($0 == 1 ? "phrase" : "phrases") du résumé" },
                                findings: { "\($0) \($0 == 1 ? "constat" : "constats")" },
                                followups: { "\($0) \($0 == 1 ? "question de suivi" : "questions de suivi")" }, and: " et ")
        case "es":
            return LeftOutWords(template: "Omitido por brevedad: {left_out}.",
                                sentences: { "\($0) \($0 == 1 ? "frase" : "frases") del resumen" },
                                findings: { "\($0) \($0 == 1 ? "hallazgo" : "hallazgos")" },
                                followups: { "\($0) \($0 == 1 ? "pregunta de seguimiento" : "preguntas de seguimiento")" }, and: " y ")
        case "pt":
            return LeftOutWords(template: "Omitido por brevidade: {left_out}.",
                                sentences: { "\($0) \($0 == 1 ? "frase" : "frases") do resumo" },
                                findings: { "\($0) \($0 == 1 ? "resultado" : "resultados")" },
                                followups: { "\($0) \($0 == 1 ? "pergunta sugerida" : "perguntas sugeridas")" }, and: " e ")
        case "ja":
            return LeftOutWords(template: "簡潔にするため省略：{left_out}。",
                                sentences: { "要約の\($0)文" }, findings: { "調査結果\($0)件" }, followups: { "質問候補\($0)件" },
                                comma: "、", and: "、")
        case "zh":
            let traditional = lowered.hasSuffix("tw") || lowered.hasSuffix("hk") || lowered.hasSuffix("hant")
            return LeftOutWords(template: traditional ? "為求簡潔，省略了：{left_out}。" : "为求简洁，省略了：{left_out}。",
                                sentences: { "摘要中的\($0)句" },
                                findings: { traditional ? "\($0)條發現" : "\($0)条发现" },
                                followups: { traditional ? "\($0)個後續問題" : "\($0)个后续问题" },
                                comma: "、", and: traditional ? "和" : "和")
        default:
            return .english
        }
    }

    /// The soul as the renderer uses it: every knob the soul leaves unset filled with the
    /// wording for its language and register, and its derived habits (opener, hedging,
    /// exclamation marks, favourite emoji, refusal) applied to the framing.
    static func effective(_ soul: Soul) -> Soul {
        var result = soul
        let wording = wording(language: soul.language, formality: soul.formality)
        func finish(_ text: String) -> String {
            guard soul.exclamatory, text.hasSuffix(".") else { return text }
            return String(text.dropLast()) + "!"
        }
        for outcome in Outcome.knownCases {
            var style = result.outcomes[outcome.rawValue] ?? OutcomeStyle()
            let defaults = wording?.outcomes[outcome] ?? DefaultVoice.outcome(outcome)
            if style.lead == nil, let lead = defaults.lead { style.lead = finish(lead) }
            if style.note == nil, let note = defaults.note { style.note = finish(note) }
            result.outcomes[outcome.rawValue] = style
        }
        if let opener = soul.opener, (result.outcomes["complete"]?.lead ?? "").isEmpty {
            result.outcomes["complete", default: OutcomeStyle()].lead = opener
        }
        // Hedging: a cautious persona hedges even when fairly confident; an assertive one only when unsure.
        switch soul.hedging {
        case .cautious:
            if result.confidence.highThreshold < 0.95 { result.confidence.highThreshold = 0.95 }
        case .assertive:
            if result.confidence.medium == nil { result.confidence.medium = "" }
        case .neutral: break
        }
        // How the persona says no labels the pushback card (before the default wording would).
        if let refusal = soul.refusal, result.interventions["pushback"]?.label == nil {
            result.interventions["pushback", default: InterventionStyle()].label = refusal
        }
        // The note naming what a length limit cut, in the soul's language.
        if result.length.omittedNote == nil { result.length.omittedNote = leftOutWords(language: soul.language).template }
        if let wording {
            // The register's wording, unless it says what the soul avoids ("Quick heads-up" for
            // a persona that never says "heads up"): then the neutral wording, then the formal.
            let avoided = AvoidedWords(soul.vocabulary.avoid)
            func fitting(_ candidates: String?...) -> String? {
                let present = candidates.compactMap { $0 }
                return present.first { !avoided.occur(in: $0) } ?? present.first
            }
            let formal = englishFormal
            if result.confidence.medium == nil { result.confidence.medium = fitting(wording.medium, DefaultVoice.hedge(.medium), formal.medium) }
            if result.confidence.low == nil { result.confidence.low = fitting(wording.low, DefaultVoice.hedge(.low), formal.low) }
            if result.titles.findings == nil { result.titles.findings = fitting(wording.findings, DefaultVoice.findingsTitle, formal.findings) }
            if result.titles.discrepancy == nil {
                result.titles.discrepancy = fitting(wording.discrepancy, DefaultVoice.discrepancyTitle, formal.discrepancy)
            }
            if result.followups.title == nil { result.followups.title = fitting(wording.followups, DefaultVoice.followupsTitle, formal.followups) }
            for type in InterventionType.knownCases where result.interventions[type.rawValue]?.label == nil {
                if let label = fitting(wording.interventions[type], DefaultVoice.interventionLabel(type), formal.interventions[type]) {
                    result.interventions[type.rawValue, default: InterventionStyle()].label = label
                }
            }
            if !avoided.isEmpty {
                for outcome in Outcome.knownCases {
                    guard var style = result.outcomes[outcome.rawValue], soul.outcomes[outcome.rawValue] == nil else { continue }
                    let neutral = DefaultVoice.outcome(outcome), stately = formal.outcomes[outcome]
                    if let lead = style.lead, avoided.occur(in: lead) { style.lead = fitting(lead, neutral.lead, stately?.lead) }
                    if let note = style.note, avoided.occur(in: note) { style.note = fitting(note, neutral.note, stately?.note) }
                    result.outcomes[outcome.rawValue] = style
                }
            }
        }
        // Emoji the persona uses, as icons, when it uses emoji freely.
        if soul.emoji == .allowed, !soul.favouriteEmoji.isEmpty {
            for (index, type) in InterventionType.knownCases.enumerated() where result.interventions[type.rawValue]?.icon == nil {
                result.interventions[type.rawValue, default: InterventionStyle()].icon = soul.favouriteEmoji[index % soul.favouriteEmoji.count]
            }
        }
        return result
    }
}

/// Words and phrases a soul avoids, to keep Reception's own framing from saying them: matched
/// as whole words, whatever the case, a hyphen read as a space ("heads up" finds "heads-up"),
/// and a word's common endings and irregular forms ("dig" finds "digging" and "dug").
struct AvoidedWords {
    private let phrases: [[Substring]]

    init(_ avoided: [String]) {
        phrases = avoided.map { Self.words($0) }.filter { !$0.isEmpty }
    }

    var isEmpty: Bool { phrases.isEmpty }

    static func words(_ text: String) -> [Substring] {
        Substring(text.lowercased()).split { !$0.isLetter && !$0.isNumber && $0 != "'" && $0 != "’" }
    }

    func occur(in text: String) -> Bool {
        guard !phrases.isEmpty else { return false }
        let words = Self.words(text)
        return phrases.contains { phrase in
            guard phrase.count <= words.count else { return false }
            return (0...(words.count - phrase.count)).contains { start in
                zip(phrase, words[start..<start + phrase.count]).allSatisfy { Self.sameWord($0, $1) }
            }
        }
    }

    /// The irregular forms of the verbs Reception's own framing uses ("What I dug up").
    private static let irregular: [Substring: Set<Substring>] = ["dig": ["dug"], "get": ["got", "gotten"], "run": ["ran"], "take": ["took", "taken"]]

    private static func sameWord(_ avoided: Substring, _ word: Substring) -> Bool {
        if irregular[avoided]?.contains(word) == true { return true }
        guard word.hasPrefix(avoided) else { return false }
        let ending = word.dropFirst(avoided.count)
        let last = avoided.last.map(String.init) ?? ""
        return ending.isEmpty || ["s", "es", "ed", "ing", "d", last + "ing", last + "ed"].contains(String(ending))
    }
}

