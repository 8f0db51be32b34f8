import Foundation

/// One AASA pattern (`/buy/*`, `?*`, `$(lang)_$(region)`) compiled for matching: `*` is any
/// run of characters, `?` exactly one, `$(name)` any value of a substitution variable.
struct AASAPattern {
    indirect enum Token {
        case literal(Unicode.Scalar)
        case one
        case any
        case characterClass(CharacterClass)
        case alternatives([[Token]])
        case never
    }

    enum CharacterClass {
        case alpha, upper, lower, alnum, digit, xdigit

        func contains(_ scalar: Unicode.Scalar, caseSensitive: Bool) -> Bool {
            let value = scalar.value
            let isUpper = value >= 0x41 && value <= 0x5A
            let isLower = value >= 0x61 && value <= 0x7A
            let isDigit = value >= 0x30 && value <= 0x39
            switch self {
            case .alpha: return isUpper || isLower
            case .upper: return isUpper || (!caseSensitive && isLower)
            case .lower: return isLower || (!caseSensitive && isUpper)
            case .alnum: return isUpper || isLower || isDigit
            case .digit: return isDigit
            case .xdigit: return isDigit || (value >= 0x41 && value <= 0x46) || (value >= 0x61 && value <= 0x66)
            }
        }
    }

    static let builtInVariables: Set<String> = ["alpha", "upper", "lower", "alnum", "digit", "xdigit", "region", "lang"]

    /// ISO 3166 region codes and ISO 639 language codes, the values of `$(region)` and `$(lang)`.
    static let regionCodes: [String] = Locale.Region.isoRegions.map(\.identifier).filter { $0.count == 2 && $0.allSatisfy(\.isLetter) }
    static let languageCodes: [String] = Locale.LanguageCode.isoLanguageCodes.map(\.identifier).filter { $0.count == 2 || $0.count == 3 }

    let tokens: [Token]
    let caseSensitive: Bool

    init(_ pattern: String, variables: [String: [String]], caseSensitive: Bool) {
        self.caseSensitive = caseSensitive
        tokens = Self.compile(pattern, variables: variables, caseSensitive: caseSensitive, allowVariables: true)
    }

    private static func compile(_ pattern: String, variables: [String: [String]], caseSensitive: Bool, allowVariables: Bool) -> [Token] {
        var tokens: [Token] = []
        let scalars = Array(pattern.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if allowVariables, scalar == "$", index + 1 < scalars.count, scalars[index + 1] == "(",
               let close = scalars[(index + 2)...].firstIndex(of: ")") {
                let name = String(String.UnicodeScalarView(scalars[(index + 2)..<close]))
                tokens.append(variable(name, variables: variables, caseSensitive: caseSensitive))
                index = close + 1
                continue
            }
            switch scalar {
            case "*":
                if case .any? = tokens.last {} else { tokens.append(.any) }
            case "?":
                tokens.append(.one)
            default:
                tokens.append(.literal(caseSensitive ? scalar : fold(scalar)))
            }
            index += 1
        }
        return tokens
    }

    private static func variable(_ name: String, variables: [String: [String]], caseSensitive: Bool) -> Token {
        let values: [String]
        if let custom = variables[name] {
            values = custom
        } else {
            switch name {
            case "alpha": return .characterClass(.alpha)
            case "upper": return .characterClass(.upper)
            case "lower": return .characterClass(.lower)
            case "alnum": return .characterClass(.alnum)
            case "digit": return .characterClass(.digit)
            case "xdigit": return .characterClass(.xdigit)
            case "region": values = regionCodes
            case "lang": values = languageCodes
            default: return .never  // an undefined variable matches nothing
            }
        }
        return .alternatives(values.map { compile($0, variables: [:], caseSensitive: caseSensitive, allowVariables: false) })
    }

    static func fold(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        scalar.properties.lowercaseMapping.unicodeScalars.count == 1 ? scalar.properties.lowercaseMapping.unicodeScalars.first! : scalar
    }

    func matches(_ subject: String) -> Bool {
        var scalars = Array(subject.unicodeScalars)
        if !caseSensitive { scalars = scalars.map(Self.fold) }
        var budget = 100_000  // patterns are short; this only stops pathological files
        return Self.match(tokens[...], scalars[...], caseSensitive: caseSensitive, budget: &budget)
    }

    private static func match(_ pattern: ArraySlice<Token>, _ subject: ArraySlice<Unicode.Scalar>, caseSensitive: Bool, budget: inout Int) -> Bool {
        budget -= 1
        guard budget > 0 else { return false }
        guard let first = pattern.first else { return subject.isEmpty }
        let rest = pattern.dropFirst()
        switch first {
        case .literal(let scalar):
            return subject.first == scalar && match(rest, subject.dropFirst(), caseSensitive: caseSensitive, budget: &budget)
        case .one:
            return !subject.isEmpty && match(rest, subject.dropFirst(), caseSensitive: caseSensitive, budget: &budget)
        case .characterClass(let characterClass):
            guard let scalar = subject.first, characterClass.contains(scalar, caseSensitive: caseSensitive) else { return false }
            return match(rest, subject.dropFirst(), caseSensitive: caseSensitive, budget: &budget)
        case .any:
            if rest.isEmpty { return true }
            var tail = subject
            while true {
                if match(rest, tail, caseSensitive: caseSensitive, budget: &budget) { return true }
                guard !tail.isEmpty else { return false }
                tail = tail.dropFirst()
            }
        case .alternatives(let alternatives):
            for alternative in alternatives where match(ArraySlice(alternative + rest), subject, caseSensitive: caseSensitive, budget: &budget) {
                return true
            }
            return false
        case .never:
            return false
        }
    }
}
