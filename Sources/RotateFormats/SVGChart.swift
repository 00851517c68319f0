import Foundation

/// A small SVG line chart (log-scaled axes optional), for benchmark records made by the project.
package enum SVGChart {
    package struct Series: Sendable {
        package var name: String
        package var color: String
        package var points: [(x: Double, y: Double)]

        package init(name: String, color: String, points: [(x: Double, y: Double)]) {
            self.name = name
            self.color = color
            self.points = points
        }
    }

    /// One chart `width` × `height` pixels at (`originX`, `originY`) of a larger document.
    package static func chart(
        title: String, xLabel: String, yLabel: String, series: [Series], logX: Bool, logY: Bool,
        originX: Double = 0, originY: Double = 0, width: Double = 640, height: Double = 360
    ) -> String {
        let all = series.flatMap(\.points).filter { (!logX || $0.x > 0) && (!logY || $0.y > 0) }
        guard !all.isEmpty else { return "" }
        func tx(_ v: Double) -> Double { logX ? log10(v) : v }
        func ty(_ v: Double) -> Double { logY ? log10(v) : v }
        var minX = all.map { tx($0.x) }.min()!, maxX = all.map { tx($0.x) }.max()!
        var minY = all.map { ty($0.y) }.min()!, maxY = all.map { ty($0.y) }.max()!
        var yStep = 1.0
        if logY {
            minY = floor(minY)
            maxY = ceil(maxY)
        } else {
            // A round step (1, 2 or 5 times a power of ten) giving about five intervals.
            minY = min(0, minY)
            let raw = max(maxY - minY, 1e-12) / 5
            let magnitude = pow(10, floor(log10(raw)))
            yStep = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? raw
            maxY = ceil(maxY / yStep) * yStep
        }
        if logX { minX = floor(minX); maxX = ceil(maxX) }
        if maxX == minX { maxX += 1 }
        if maxY == minY { maxY += 1 }
        let left = originX + 80, right = originX + width - 20, top = originY + 40, bottom = originY + height - 50
        func px(_ v: Double) -> Double { left + (tx(v) - minX) / (maxX - minX) * (right - left) }
        func py(_ v: Double) -> Double { bottom - (ty(v) - minY) / (maxY - minY) * (bottom - top) }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        func label(_ v: Double) -> String {
            if v >= 1_000_000 { return String(format: "%gM", v / 1_000_000) }
            if v >= 1_000 { return String(format: "%gk", v / 1_000) }
            return String(format: "%g", v)
        }
        var out: [String] = []
        out.append(
            "<text x=\"\(f(originX + width / 2))\" y=\"\(f(originY + 22))\" text-anchor=\"middle\" font-weight=\"bold\">\(title)</text>")
        out.append(
            "<rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(right - left))\" height=\"\(f(bottom - top))\" fill=\"none\" stroke=\"#999\"/>"
        )
        // Grid and ticks: decades on log axes, five steps on linear ones.
        let xTicks: [Double] =
            logX ? stride(from: minX, through: maxX, by: 1).map { pow(10, $0) } : (0...5).map { minX + Double($0) * (maxX - minX) / 5 }
        let yTicks: [Double] =
            logY
            ? stride(from: minY, through: maxY, by: 1).map { pow(10, $0) }
            : stride(from: minY, through: maxY + yStep / 2, by: yStep).map { $0 }
        for t in xTicks {
            out.append("<line x1=\"\(f(px(t)))\" y1=\"\(f(top))\" x2=\"\(f(px(t)))\" y2=\"\(f(bottom))\" stroke=\"#e4e4e4\"/>")
            out.append("<text x=\"\(f(px(t)))\" y=\"\(f(bottom + 16))\" text-anchor=\"middle\" font-size=\"11\">\(label(t))</text>")
        }
        for t in yTicks {
            out.append("<line x1=\"\(f(left))\" y1=\"\(f(py(t)))\" x2=\"\(f(right))\" y2=\"\(f(py(t)))\" stroke=\"#e4e4e4\"/>")
            out.append("<text x=\"\(f(left - 6))\" y=\"\(f(py(t) + 4))\" text-anchor=\"end\" font-size=\"11\">\(label(t))</text>")
        }
        out.append("<text x=\"\(f((left + right) / 2))\" y=\"\(f(bottom + 36))\" text-anchor=\"middle\" font-size=\"12\">\(xLabel)</text>")
        out.append(
            "<text x=\"\(f(originX + 16))\" y=\"\(f((top + bottom) / 2))\" text-anchor=\"middle\" font-size=\"12\" transform=\"rotate(-90 \(f(originX + 16)) \(f((top + bottom) / 2)))\">\(yLabel)</text>"
        )
        for (i, s) in series.enumerated() {
            let points = s.points.filter { (!logX || $0.x > 0) && (!logY || $0.y > 0) }
            out.append(
                "<polyline fill=\"none\" stroke=\"\(s.color)\" stroke-width=\"2\" points=\""
                    + points.map { "\(f(px($0.x))),\(f(py($0.y)))" }.joined(separator: " ") + "\"/>")
            for p in points { out.append("<circle cx=\"\(f(px(p.x)))\" cy=\"\(f(py(p.y)))\" r=\"3\" fill=\"\(s.color)\"/>") }
            out.append(
                "<line x1=\"\(f(left + 12))\" y1=\"\(f(top + 16 + 18 * Double(i)))\" x2=\"\(f(left + 32))\" y2=\"\(f(top + 16 + 18 * Double(i)))\" stroke=\"\(s.color)\" stroke-width=\"2\"/>"
            )
            out.append("<text x=\"\(f(left + 38))\" y=\"\(f(top + 20 + 18 * Double(i)))\" font-size=\"12\">\(s.name)</text>")
        }
        return out.joined(separator: "\n")
    }

    /// A document holding charts stacked vertically.
    package static func document(_ charts: [String], width: Double = 640, chartHeight: Double = 360) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(chartHeight * Double(charts.count)))\" "
            + "font-family=\"sans-serif\" font-size=\"13\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
            + charts.joined(separator: "\n") + "\n</svg>"
    }
}
