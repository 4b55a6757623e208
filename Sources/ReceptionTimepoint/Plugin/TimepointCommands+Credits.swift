extension TimepointCommands {
    func credits(_ arguments: [String]) async throws -> String {
        switch arguments.first {
        case nil:
            let balance = try await client.balance()
            let costs = await backend.costs()
            var text = "You have **\(TimepointError.credits(balance.balance))**"
            if let earned = balance.lifetimeEarned, let spent = balance.lifetimeSpent { text += " (\(earned) earned, \(spent) spent in all)" }
            return text + ".\n\n" + costTable(costs)
        case "costs":
            return costTable(try await client.costs())
        case "history":
            let page = arguments.count > 1 ? Int(arguments[1]) ?? 0 : 1
            guard page >= 1 else { throw CommandUsage("Usage: /credits history [PAGE] (PAGE from 1)") }
            let rows = try await client.history(limit: 20, offset: (page - 1) * 20)
            guard !rows.isEmpty else { return page == 1 ? "No credit movements yet." : "No page \(page): the ledger is shorter." }
            let lines = rows.map { row in
                let sign = row.amount > 0 ? "+\(row.amount)" : String(row.amount)
                return "| \(row.createdAt ?? "") | \(sign) | \(row.balanceAfter.map(String.init) ?? "") | \(row.type ?? "") | \(SceneText.clip(row.description ?? "", 80)) |"
            }
            let more = rows.count == 20 ? "\n\n/credits history \(page + 1) shows older ones." : ""
            return "| when | amount | balance | kind | what |\n|---|---|---|---|---|\n" + lines.joined(separator: "\n") + more
        default:
            throw CommandUsage("Usage: /credits | /credits history [PAGE] | /credits costs")
        }
    }

    func costTable(_ costs: CreditCosts) -> String {
        let names = ["generate_balanced": "a scene (balanced)", "generate_hd": "a scene (hd)", "generate_hyper": "a scene (hyper)",
                     "generate_gemini3": "a scene (gemini3)", "chat": "a question to a character", "temporal_jump": "a jump in time"]
        let rows = costs.costs.keys.sorted().map { key in "| \(names[key] ?? key) | \(costs.costs[key]!) |" }
        return "| action | credits |\n|---|---|\n" + rows.joined(separator: "\n")
    }
}
