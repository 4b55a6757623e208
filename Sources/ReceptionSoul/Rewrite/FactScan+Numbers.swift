/// Dates, prices and numbers with their units.
extension FactScan {
    static let months: [String: Int] = [
        "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
        "september": 9, "october": 10, "november": 11, "december": 12,
        "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
    ]

    static let currencySigns: Set<Character> = ["$", "€", "£", "¥", "₹", "₩", "₽", "₺", "₪", "฿", "₫", "¢", "₴", "₦", "₱"]
    static let currencyCodes: Set<String> = ["USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "CNY", "INR", "SEK", "NOK", "DKK", "BRL", "MXN", "KRW"]

    /// Units and scale words after a number, each with the name keys use (so "45 percent"
    /// and "45%", "2 hours" and "2 h" are the same fact). Case matters: m and M differ.
    static let units: [String: String] = {
        var units: [String: String] = [:]
        for unit in ["km", "m", "cm", "mm", "µm", "nm", "mi", "ft", "yd", "kg", "g", "mg", "lb", "lbs", "oz", "t", "l", "L", "ml", "mL", "cl", "dl",
                     "gal", "h", "min", "s", "ms", "µs", "ns", "KB", "MB", "GB", "TB", "PB", "kB", "KiB", "MiB", "GiB", "TiB", "kb", "Mb", "Gb",
                     "bit", "bits", "byte", "bytes", "Hz", "kHz", "MHz", "GHz", "W", "kW", "MW", "GW", "kWh", "MWh", "Wh", "V", "mV", "kV", "A",
                     "mA", "mAh", "°C", "°F", "K", "px", "pt", "em", "rem", "dpi", "fps", "rpm", "mph", "km/h", "kph", "m/s", "x", "×", "k", "M",
                     "bn", "%", "‰", "day", "days", "week", "weeks", "month", "months", "year", "years", "yr", "yrs",
                     "million", "billion", "trillion", "thousand", "dollars", "dollar", "euros", "euro", "cents", "cent", "yen", "pounds",
                     "pence", "percent", "kilometres", "kilometers", "kilograms", "metres", "meters", "hours", "hour", "hr", "hrs",
                     "minutes", "minute", "mins", "seconds", "second", "sec", "secs", "miles", "mile", "litres", "liters", "steps", "pages"] {
            units[unit] = unit
        }
        for (long, short) in [("percent", "%"), ("hours", "h"), ("hour", "h"), ("hr", "h"), ("hrs", "h"), ("minutes", "min"),
                              ("minute", "min"), ("mins", "min"), ("seconds", "s"), ("second", "s"), ("sec", "s"), ("secs", "s"),
                              ("kilometres", "km"), ("kilometers", "km"), ("kilograms", "kg"), ("metres", "m"), ("meters", "m"),
                              ("miles", "mi"), ("mile", "mi"), ("litres", "l"), ("liters", "l"), ("L", "l"), ("days", "day"),
                              ("weeks", "week"), ("months", "month"), ("years", "year"), ("yr", "year"), ("yrs", "year"),
                              ("lbs", "lb"), ("bits", "bit"), ("bytes", "byte"), ("dollar", "dollars"), ("euro", "euros"), ("cent", "cents")] {
            units[long] = short
        }
        return units
    }()

    /// Number words and their digits ("one" is left out: "the one you chose" is no number).
    static let numberWords: [String: String] = [
        "zero": "0", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9",
        "ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13", "fourteen": "14", "fifteen": "15", "sixteen": "16",
        "seventeen": "17", "eighteen": "18", "nineteen": "19", "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50",
        "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90", "hundred": "100", "thousand": "1000", "million": "1000000",
        "billion": "1000000000", "dozen": "12", "half": "1/2", "twice": "2 x",
    ]

    func text(_ token: FactToken) -> String { String(characters[token.range]) }

    mutating func findDatesPricesAndNumbers(_ tokens: [FactToken], consumed: inout [Bool]) {
        findDates(tokens, consumed: &consumed)
        findPrices(tokens, consumed: &consumed)
        for index in tokens.indices where !consumed[index] {
            let token = tokens[index]
            var numberKey: String?
            if token.kind == .number {
                numberKey = Self.numberKey(text(token))
            } else if token.kind == .word, let digits = Self.numberWords[text(token).lowercased()] {
                numberKey = digits
            }
            guard var key = numberKey else { continue }
            consumed[index] = true
            var end = token.range.upperBound
            // A unit word after it: "12.5 km", "three hours".
            if !key.contains(" "), index + 1 < tokens.count, tokens[index + 1].kind == .word, !consumed[index + 1],
               let unit = Self.units[text(tokens[index + 1])] {
                key += " " + unit
                end = tokens[index + 1].range.upperBound
                consumed[index + 1] = true
            }
            add(.number, token.range.lowerBound..<end, key: key)
        }
    }

    /// "3.2GB" → "3.2 GB", "45%" → "45 %", "2nd" → "2nd", "v1.2.3" → "v1.2.3".
    static func numberKey(_ written: String) -> String {
        let characters = Array(written)
        guard let first = characters.first, first.isNumber || first == "-" || first == "+" || first == "−" else { return written }
        var split = characters.count
        while split > 0, !characters[split - 1].isNumber { split -= 1 }
        guard split < characters.count, split > 0 else { return written }
        let suffix = String(characters[split...])
        guard let unit = units[suffix] else { return written }
        return String(characters[..<split]) + " " + unit
    }

    // MARK: Dates

    /// ISO dates ("2026-12-01", with an optional time) and written ones ("1 December 2026",
    /// "December 1, 2026", "1st of Dec", "Dec 2026"), keyed by year, month and day so the
    /// spellings of one date agree.
    mutating func findDates(_ tokens: [FactToken], consumed: inout [Bool]) {
        for index in tokens.indices where !consumed[index] && tokens[index].kind == .number {
            let written = Array(text(tokens[index]))
            guard written.count >= 10, written[4] == "-", written[7] == "-",
                  written[0..<4].allSatisfy(\.isASCIIDigit), written[5..<7].allSatisfy(\.isASCIIDigit), written[8..<10].allSatisfy(\.isASCIIDigit)
            else { continue }
            consumed[index] = true
            add(.date, tokens[index].range, key: String(written[..<10]) + (written.count > 10 ? String(written[10...]) : ""))
        }
        var index = 0
        while index < tokens.count {
            defer { index += 1 }
            guard !consumed[index], tokens[index].kind == .word, let month = Self.months[text(tokens[index]).lowercased()] else { continue }
            // "May" and "march" are words unless a day or a year stands next to them.
            var first = index, last = index
            var day: Int?, year: Int?
            // Day before: "1 December", "1st of December".
            var before = index - 1
            if before >= 0, tokens[before].kind == .word, text(tokens[before]) == "of" { before -= 1 }
            if before >= 0, !consumed[before], tokens[before].kind == .number, let value = Self.dayNumber(text(tokens[before])) {
                day = value
                first = before
            }
            var after = index + 1
            if after < tokens.count, tokens[after].kind == .mark("."), text(tokens[index]).count <= 4 { after += 1 }  // "Dec."
            if day == nil, after < tokens.count, !consumed[after], tokens[after].kind == .number, let value = Self.dayNumber(text(tokens[after])) {
                day = value
                last = after
                after += 1
            }
            var yearAt = after
            if yearAt < tokens.count, tokens[yearAt].kind == .mark(","), day != nil { yearAt += 1 }
            if yearAt < tokens.count, !consumed[yearAt], tokens[yearAt].kind == .number, let value = Self.yearNumber(text(tokens[yearAt])) {
                year = value
                last = yearAt
            }
            guard day != nil || year != nil else { continue }
            // A short month name alone with a number ("Mar 3") is a date; "may 3" in lower case is not.
            if text(tokens[index]).first?.isLowercase == true, text(tokens[index]).lowercased() == "may" || text(tokens[index]).lowercased() == "march" { continue }
            for position in first...last { consumed[position] = true }
            func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
            let key = (year.map { "\($0)" } ?? "????") + "-" + twoDigits(month) + "-" + (day.map(twoDigits) ?? "??")
            add(.date, tokens[first].range.lowerBound..<tokens[last].range.upperBound, key: key)
            index = last
        }
    }

    static func dayNumber(_ written: String) -> Int? {
        var digits = Substring(written)
        for suffix in ["st", "nd", "rd", "th"] where digits.hasSuffix(suffix) { digits = digits.dropLast(2) }
        guard digits.count <= 2, let value = Int(digits), (1...31).contains(value) else { return nil }
        return value
    }

    static func yearNumber(_ written: String) -> Int? {
        guard written.count == 4, let value = Int(written), (1000...2999).contains(value) else { return nil }
        return value
    }

    // MARK: Prices

    /// A currency sign or code next to a number: "$40M", "€ 3.20", "30 €", "USD 1,200".
    mutating func findPrices(_ tokens: [FactToken], consumed: inout [Bool]) {
        for index in tokens.indices where !consumed[index] {
            let token = tokens[index]
            let currency: String
            switch token.kind {
            case .mark(let sign) where Self.currencySigns.contains(sign): currency = String(sign)
            case .word where Self.currencyCodes.contains(text(token)): currency = text(token)
            default: continue
            }
            var number: Int?
            if index + 1 < tokens.count, !consumed[index + 1], tokens[index + 1].kind == .number,
               currency.count == 1 || tokens[index + 1].spaceBefore {
                number = index + 1
            } else if index > 0, !consumed[index - 1], tokens[index - 1].kind == .number {
                number = index - 1
            }
            guard let number else { continue }
            consumed[index] = true
            consumed[number] = true
            var amount = text(tokens[number])
            var end = max(tokens[index].range.upperBound, tokens[number].range.upperBound)
            // A scale word after it: "$1.2 million".
            if number + 1 < tokens.count, number + 1 != index, tokens[number + 1].kind == .word, !consumed[number + 1],
               ["million", "billion", "trillion", "thousand", "bn", "k", "M"].contains(text(tokens[number + 1])) {
                amount += " " + text(tokens[number + 1])
                consumed[number + 1] = true
                end = max(end, tokens[number + 1].range.upperBound)
            }
            let start = min(tokens[index].range.lowerBound, tokens[number].range.lowerBound)
            add(.price, start..<end, key: currency + amount)
        }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

