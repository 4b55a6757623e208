import Foundation

/// One head's regularised softmax regression over sparse binary rows, fitted by L-BFGS.
/// Parameters: feature-major weights (features × classes), then the biases.
///
/// The loops run over raw pointers with `while`, not over arrays with `for … in`: the test
/// suite, a debug build, reruns the whole training to check the shipped weights byte for
/// byte, and there an array subscript or a range's iterator is a function call per element
/// (an element of an array of arrays, a copy of the inner array too). Pointer subscripts
/// are inlined even unoptimised. Every sum adds in the same order as before, so the bytes
/// of a release and a debug build, and of the shipped weights, are unchanged.
struct SoftmaxProblem {
    /// The rows as one list of feature ids: row i is `columns[offsets[i]..<offsets[i + 1]]`.
    let columns: [Int32]
    let offsets: [Int]
    let targets: [Int]
    let classes: Int
    let features: Int
    let penalty: [Double]
    /// Each example's weight in the loss: its class's balancing weight times its own.
    let weight: [Double]

    /// Class counts are of weighted examples, so balancing applies to the mix as weighted.
    init(rows: [[Int32]], targets: [Int], classes: Int, features: Int, penalty: [Double], balance: Double,
         exampleWeight: [Double]) {
        var offsets = [0]
        offsets.reserveCapacity(rows.count + 1)
        for row in rows { offsets.append(offsets[offsets.count - 1] + row.count) }
        self.columns = Array(rows.joined())
        self.offsets = offsets
        self.targets = targets
        self.classes = classes
        self.features = features
        self.penalty = penalty
        var counts = [Double](repeating: 0, count: classes)
        for (t, w) in zip(targets, exampleWeight) { counts[t] += w }
        let n = counts.reduce(0, +)
        let classWeight = counts.map { $0 == 0 ? 0 : pow(n / (Double(classes) * $0), balance) }
        weight = zip(targets, exampleWeight).map { classWeight[$0] * $1 }
    }

    func logits(_ x: [Double], row i: Int) -> [Double] {
        var out = Array(x[(features * classes)..<(features * classes + classes)])
        for f in columns[offsets[i]..<offsets[i + 1]] { for k in 0..<classes { out[k] += x[Int(f) * classes + k] } }
        return out
    }

    func lossAndGradient(_ x: [Double], subset: [Int]) -> (Double, [Double]) {
        var gradient = [Double](repeating: 0, count: x.count)
        var loss = 0.0
        var totalWeight = 0.0
        for i in subset { totalWeight += weight[i] }
        let scale = 1 / totalWeight
        let classes = classes, biasOffset = features * classes
        var probabilities = [Double](repeating: 0, count: classes)
        x.withUnsafeBufferPointer { x in
        gradient.withUnsafeMutableBufferPointer { g in
        probabilities.withUnsafeMutableBufferPointer { p in
        columns.withUnsafeBufferPointer { columns in
        offsets.withUnsafeBufferPointer { offsets in
        targets.withUnsafeBufferPointer { targets in
        weight.withUnsafeBufferPointer { weights in
        subset.withUnsafeBufferPointer { subset in
            let x = Dense.start(x), g = Dense.start(g), p = Dense.start(p)
            let columns = Dense.start(columns), offsets = Dense.start(offsets)
            let targets = Dense.start(targets), weights = Dense.start(weights)
            let count = subset.count, subset = Dense.start(subset)
            var s = 0
            while s < count {
                let i = subset[s], end = offsets[i + 1], target = targets[i]
                var k = 0
                while k < classes { p[k] = x[biasOffset + k]; k += 1 }
                var c = offsets[i]
                while c < end {
                    let base = Int(columns[c]) * classes
                    k = 0
                    while k < classes { p[k] += x[base + k]; k += 1 }
                    c += 1
                }
                var maximum = -Double.infinity
                k = 0
                while k < classes { if p[k] > maximum { maximum = p[k] }; k += 1 }
                var sum = 0.0
                k = 0
                while k < classes { p[k] = exp(p[k] - maximum); sum += p[k]; k += 1 }
                let weight = weights[i] * scale
                loss -= weight * (log(p[target] / sum))
                k = 0
                while k < classes {
                    var d = p[k] / sum
                    if k == target { d -= 1 }
                    d *= weight
                    p[k] = d
                    g[biasOffset + k] += d
                    k += 1
                }
                c = offsets[i]
                while c < end {
                    let base = Int(columns[c]) * classes
                    k = 0
                    while k < classes { g[base + k] += p[k]; k += 1 }
                    c += 1
                }
                s += 1
            }
            penalty.withUnsafeBufferPointer { penalty in
                let penalty = Dense.start(penalty)
                var f = 0
                while f < features {
                    let lambda = penalty[f]
                    let base = f * classes
                    var k = 0
                    while k < classes {
                        let w = x[base + k]
                        loss += 0.5 * lambda * w * w
                        g[base + k] += lambda * w
                        k += 1
                    }
                    f += 1
                }
            }
        }}}}}}}}
        return (loss, gradient)
    }

    /// L-BFGS (memory 10) with a backtracking Armijo line search, from zero.
    func fit(all subset: [Int], maxIterations: Int) -> [Double] {
        let size = features * classes + classes
        var x = [Double](repeating: 0, count: size)
        var (f, g) = lossAndGradient(x, subset: subset)
        var sHistory: [[Double]] = [], yHistory: [[Double]] = [], rhoHistory: [Double] = []
        for iteration in 0..<maxIterations {
            // Two-loop recursion.
            var q = g
            var alphas = [Double](repeating: 0, count: sHistory.count)
            for j in stride(from: sHistory.count - 1, through: 0, by: -1) {
                alphas[j] = rhoHistory[j] * Dense.dot(sHistory[j], q)
                Dense.subtract(alphas[j], times: yHistory[j], from: &q)
            }
            var gamma = 1.0
            if let s = sHistory.last, let y = yHistory.last { gamma = Dense.dot(s, y) / Dense.dot(y, y) }
            else { gamma = 1 / max(sqrt(Dense.dot(g, g)), 1e-12) }
            Dense.multiply(&q, by: gamma)
            for j in 0..<sHistory.count {
                let beta = rhoHistory[j] * Dense.dot(yHistory[j], q)
                Dense.add(sHistory[j], times: alphas[j] - beta, to: &q)
            }
            var direction = Dense.negated(q)
            var slope = Dense.dot(g, direction)
            if slope >= 0 { // not a descent direction: restart with steepest descent
                direction = Dense.negated(g)
                slope = Dense.dot(g, direction)
                sHistory.removeAll(); yHistory.removeAll(); rhoHistory.removeAll()
            }
            var step = 1.0
            var candidate = x, fNew = f, gNew = g
            var accepted = false
            for _ in 0..<40 {
                Dense.step(from: x, by: step, along: direction, into: &candidate)
                (fNew, gNew) = lossAndGradient(candidate, subset: subset)
                if fNew <= f + 1e-4 * step * slope { accepted = true; break }
                step *= 0.5
            }
            if !accepted { break }
            let s = Dense.difference(candidate, x), y = Dense.difference(gNew, g)
            let sy = Dense.dot(s, y)
            if sy > 1e-12 {
                sHistory.append(s); yHistory.append(y); rhoHistory.append(1 / sy)
                if sHistory.count > 10 { sHistory.removeFirst(); yHistory.removeFirst(); rhoHistory.removeFirst() }
            }
            let improvement = f - fNew
            x = candidate; f = fNew; g = gNew
            let gradientNorm = Dense.largestMagnitude(g)
            if gradientNorm < 1e-7 || (iteration > 5 && improvement < 1e-11 * max(1, abs(f))) { break }
        }
        return x
    }
}

/// The dense vector steps of L-BFGS, element by element in index order (see `SoftmaxProblem`
/// on why over raw pointers). Operands have the same length.
enum Dense {
    /// A buffer's first element; never read when the buffer is empty, whose base address
    /// may be nil.
    static func start<T>(_ buffer: UnsafeBufferPointer<T>) -> UnsafePointer<T> {
        buffer.baseAddress ?? UnsafePointer(bitPattern: MemoryLayout<T>.alignment)!
    }

    static func start<T>(_ buffer: UnsafeMutableBufferPointer<T>) -> UnsafeMutablePointer<T> {
        buffer.baseAddress ?? UnsafeMutablePointer(bitPattern: MemoryLayout<T>.alignment)!
    }

    static func dot(_ a: [Double], _ b: [Double]) -> Double {
        var sum = 0.0
        a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in
            let n = a.count, a = start(a), b = start(b)
            var i = 0
            while i < n { sum += a[i] * b[i]; i += 1 }
        }}
        return sum
    }

    /// q[i] -= a · y[i]
    static func subtract(_ a: Double, times y: [Double], from q: inout [Double]) {
        q.withUnsafeMutableBufferPointer { q in y.withUnsafeBufferPointer { y in
            let n = q.count, q = start(q), y = start(y)
            var i = 0
            while i < n { q[i] -= a * y[i]; i += 1 }
        }}
    }

    /// q[i] += s[i] · c
    static func add(_ s: [Double], times c: Double, to q: inout [Double]) {
        q.withUnsafeMutableBufferPointer { q in s.withUnsafeBufferPointer { s in
            let n = q.count, q = start(q), s = start(s)
            var i = 0
            while i < n { q[i] += s[i] * c; i += 1 }
        }}
    }

    static func multiply(_ q: inout [Double], by c: Double) {
        q.withUnsafeMutableBufferPointer { q in
            let n = q.count, q = start(q)
            var i = 0
            while i < n { q[i] *= c; i += 1 }
        }
    }

    static func negated(_ v: [Double]) -> [Double] {
        [Double](unsafeUninitializedCapacity: v.count) { out, initialized in
            v.withUnsafeBufferPointer { v in
                let n = v.count, v = start(v), o = start(out)
                var i = 0
                while i < n { o[i] = -v[i]; i += 1 }
            }
            initialized = v.count
        }
    }

    /// a[i] - b[i]
    static func difference(_ a: [Double], _ b: [Double]) -> [Double] {
        [Double](unsafeUninitializedCapacity: a.count) { out, initialized in
            a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in
                let n = a.count, a = start(a), b = start(b), o = start(out)
                var i = 0
                while i < n { o[i] = a[i] - b[i]; i += 1 }
            }}
            initialized = a.count
        }
    }

    /// into[i] = x[i] + step · direction[i]
    static func step(from x: [Double], by step: Double, along direction: [Double], into out: inout [Double]) {
        out.withUnsafeMutableBufferPointer { o in x.withUnsafeBufferPointer { x in direction.withUnsafeBufferPointer { d in
            let n = o.count, o = start(o), x = start(x), d = start(d)
            var i = 0
            while i < n { o[i] = x[i] + step * d[i]; i += 1 }
        }}}
    }

    /// The largest |v[i]|.
    static func largestMagnitude(_ v: [Double]) -> Double {
        var largest = 0.0
        v.withUnsafeBufferPointer { v in
            let n = v.count, v = start(v)
            var i = 0
            while i < n { largest = max(largest, abs(v[i])); i += 1 }
        }
        return largest
    }
}
