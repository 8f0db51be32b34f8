/// Finds every occurrence of a fixed set of tokens in one pass over a string, ignoring ASCII
/// case (Aho–Corasick). The automaton is built once; a scan touches each byte of the input
/// once, however many tokens there are, so classifying a user agent costs the same with
/// ten tokens or three hundred.
struct TokenScanner: Sendable {
    struct Hit: Sendable {
        /// Index of the token in the list the scanner was built from.
        var token: Int
        /// Byte offsets of the occurrence in the scanned text.
        var start: Int
        var end: Int
    }

    private let classOf: [UInt8]        // byte → alphabet class (0 = a byte no token contains)
    private let classCount: Int
    private let transitions: [Int32]    // state * classCount + class → next state
    private let outputStart: [Int32]    // state → first index into `outputs`
    private let outputs: [Int32]        // token indices, grouped by state
    private let tokenLengths: [Int]

    init(tokens: [String]) {
        var classOf = [UInt8](repeating: 0, count: 256)
        var classCount = 1
        let patterns = tokens.map { Array($0.lowercased().utf8) }
        for pattern in patterns {
            for byte in pattern where classOf[Int(byte)] == 0 {
                classOf[Int(byte)] = UInt8(classCount)
                classCount += 1
            }
        }
        precondition(classCount < 256, "too many distinct characters in tokens")
        for upper in UInt8(ascii: "A")...UInt8(ascii: "Z") {
            classOf[Int(upper)] = classOf[Int(upper + 32)]
        }

        // The trie, as sparse goto tables.
        var goto: [[Int32]] = [[Int32](repeating: -1, count: classCount)]
        var terminal: [[Int32]] = [[]]
        for (index, pattern) in patterns.enumerated() {
            var state = 0
            for byte in pattern {
                let symbol = Int(classOf[Int(byte)])
                if goto[state][symbol] < 0 {
                    goto[state][symbol] = Int32(goto.count)
                    goto.append([Int32](repeating: -1, count: classCount))
                    terminal.append([])
                }
                state = Int(goto[state][symbol])
            }
            terminal[state].append(Int32(index))
        }

        // Breadth-first: failure links, then the complete deterministic automaton.
        let stateCount = goto.count
        var fail = [Int32](repeating: 0, count: stateCount)
        var table = [Int32](repeating: 0, count: stateCount * classCount)
        var order: [Int] = []
        order.reserveCapacity(stateCount)
        for symbol in 0..<classCount {
            let next = goto[0][symbol]
            table[symbol] = max(next, 0)
            if next > 0 { order.append(Int(next)) }
        }
        var head = 0
        while head < order.count {
            let state = order[head]
            head += 1
            terminal[state] += terminal[Int(fail[state])]
            for symbol in 0..<classCount {
                let next = goto[state][symbol]
                let viaFail = table[Int(fail[state]) * classCount + symbol]
                if next >= 0 {
                    fail[Int(next)] = viaFail
                    table[state * classCount + symbol] = next
                    order.append(Int(next))
                } else {
                    table[state * classCount + symbol] = viaFail
                }
            }
        }

        var outputStart = [Int32](repeating: 0, count: stateCount + 1)
        var outputs: [Int32] = []
        for state in 0..<stateCount {
            outputStart[state] = Int32(outputs.count)
            outputs += terminal[state]
        }
        outputStart[stateCount] = Int32(outputs.count)

        self.classOf = classOf
        self.classCount = classCount
        self.transitions = table
        self.outputStart = outputStart
        self.outputs = outputs
        self.tokenLengths = patterns.map(\.count)
    }

    /// Calls `body` for every occurrence of every token, in order of where it ends.
    func scan(_ text: UnsafeBufferPointer<UInt8>, _ body: (Hit) -> Void) {
        classOf.withUnsafeBufferPointer { classOf in
            transitions.withUnsafeBufferPointer { table in
                outputStart.withUnsafeBufferPointer { outputStart in
                    var state = 0
                    for index in 0..<text.count {
                        let symbol = Int(classOf[Int(text[index])])
                        state = Int(table[state &* classCount &+ symbol])
                        var output = Int(outputStart[state])
                        let last = Int(outputStart[state + 1])
                        while output < last {
                            let token = Int(outputs[output])
                            body(Hit(token: token, start: index + 1 - tokenLengths[token], end: index + 1))
                            output += 1
                        }
                    }
                }
            }
        }
    }
}
