import Foundation
import PixelRender
import SharedTestData
import Testing
import TileFormats

/// The encoders, checked by decoding what they wrote: the kitty payload here, sixel with libsixel's
/// own `sixel2png`.
@Suite struct TerminalGraphicsTests {
    /// Four flat quadrants and a diagonal line: what maps are made of.
    static func sample(width: Int = 64, height: Int = 48) -> RasterImage {
        var rgba: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                if x == y { rgba += [0, 0, 0, 255]; continue }
                switch (x < width / 2, y < height / 2) {
                case (true, true): rgba += [200, 30, 30, 255]
                case (false, true): rgba += [30, 160, 60, 255]
                case (true, false): rgba += [40, 70, 200, 255]
                case (false, false): rgba += [240, 235, 220, 255]
                }
            }
        }
        return RasterImage(width: width, height: height, rgba: rgba)
    }

    /// The kitty sequences' control keys and payloads, in order.
    static func kittyChunks(_ bytes: [UInt8]) -> [(control: [String: String], payload: [UInt8])] {
        var chunks: [(control: [String: String], payload: [UInt8])] = []
        var rest = bytes[...]
        while let start = rest.firstIndex(of: 0x1B), rest.dropFirst(start - rest.startIndex).starts(with: Array("\u{1B}_G".utf8)) {
            let body = rest[(start + 3)...]
            guard let end = body.indices.first(where: { body[$0] == 0x1B && body.index(after: $0) < body.endIndex && body[body.index(after: $0)] == 0x5C })
            else { break }
            let sequence = body[..<end]
            let semicolon = sequence.firstIndex(of: 0x3B) ?? end
            let control = String(decoding: sequence[..<semicolon], as: UTF8.self).split(separator: ",").reduce(into: [String: String]()) {
                let pair = $1.split(separator: "=", maxSplits: 1)
                $0[String(pair[0])] = pair.count > 1 ? String(pair[1]) : ""
            }
            chunks.append((control, semicolon < end ? Array(sequence[(semicolon + 1)...]) : []))
            rest = body[(end + 2)...]
        }
        return chunks
    }

    @Test func kittyPayloadInflatesToThePicture() throws {
        // Noise does not compress: the payload takes many chunks.
        var generator = SystemRandomNumberGenerator()
        let noisy = RasterImage(width: 120, height: 90, rgba: (0..<(120 * 90 * 4)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        for image in [Self.sample(), noisy] {
            let bytes = TerminalGraphics.kitty(image, id: 7, columns: 8, rows: 3)
            let chunks = Self.kittyChunks(bytes)
            #expect(chunks.count >= 1)
            let first = try #require(chunks.first).control
            // Opaque pictures go as RGB, others as RGBA.
            let opaque = stride(from: 3, to: image.rgba.count, by: 4).allSatisfy { image.rgba[$0] == 255 }
            #expect(first["a"] == "T" && first["f"] == (opaque ? "24" : "32") && first["o"] == "z" && first["i"] == "7")
            #expect(first["s"] == "\(image.width)" && first["v"] == "\(image.height)" && first["c"] == "8" && first["r"] == "3")
            #expect(chunks.dropLast().allSatisfy { $0.control["m"] == "1" && $0.payload.count == 4_096 })
            #expect(chunks.last?.control["m"] == "0")
            let base64 = chunks.flatMap(\.payload)
            let compressed = try #require(Data(base64Encoded: Data(base64)))
            let rgba = try Deflate.inflate(compressed, container: .zlib, limit: 64 << 20)
            let expected = opaque ? image.rgba.enumerated().filter { $0.offset % 4 != 3 }.map(\.element) : image.rgba
            #expect([UInt8](rgba) == expected)
            // Everything written is the sequences: nothing else reaches the terminal.
            #expect(chunks.reduce(0) { $0 + 3 + $1.payload.count + 2 } <= bytes.count)
        }
        #expect(Self.kittyChunks(TerminalGraphics.kitty(noisy, id: 1, columns: 1, rows: 1)).count > 1)
    }

    /// `image` as sixel, decoded by libsixel's own `sixel2png`.
    static func throughSixel2png(_ image: RasterImage) async throws -> RasterImage {
        let sixel = TerminalGraphics.sixel(image)
        #expect(sixel.starts(with: [0x1B, 0x50]) && sixel.suffix(2) == [0x1B, 0x5C])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-sixel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("map.six"), output = directory.appendingPathComponent("map.png")
        try Data(sixel).write(to: input)
        // Spawned and waited for by its pid on a thread of its own: Foundation's `Process` wait blocks
        // one of the test runner's two cooperative threads (beside busy loops, the whole suite stalled).
        let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            Thread.detachNewThread {
                var pid: pid_t = 0
                let words = ["sixel2png", "-i", input.path, "-o", output.path]
                var argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
                defer { argv.forEach { free($0) } }
                guard posix_spawn(&pid, "/usr/bin/sixel2png", nil, nil, &argv, environ) == 0 else { return continuation.resume(returning: -1) }
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                continuation.resume(returning: status)
            }
        }
        try #require(status == 0)
        return try RasterImage(decoding: Data(contentsOf: output))
    }

    /// The largest difference in a channel between two pictures of a size (in columns `from` on),
    /// and the mean one.
    static func difference(_ a: RasterImage, _ b: RasterImage, from column: Int = 0) -> (worst: Int, mean: Double) {
        var worst = 0, sum = 0
        for y in 0..<a.height {
            for x in column..<a.width {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                let d = [abs(Int(p.r) - Int(q.r)), abs(Int(p.g) - Int(q.g)), abs(Int(p.b) - Int(q.b))]
                worst = max(worst, d.max()!); sum += d.reduce(0, +)
            }
        }
        return (worst, Double(sum) / Double(max(a.width * a.height * 3, 1)))
    }

    /// Flat colours and a line (fewer than 256): each pixel its own colour but for the palette's
    /// percent steps, at sizes whose last band of six rows is short, one pixel wide or tall.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sixel2png"), "needs sixel2png (scripts/setup installs libsixel-bin)"),
          arguments: [(64, 48), (37, 47), (1, 13), (300, 1)])
    func sixelDecodesToThePictureWithLibsixelsOwnDecoder(width: Int, height: Int) async throws {
        let image = Self.sample(width: width, height: height)
        let decoded = try await Self.throughSixel2png(image)
        try #require(decoded.width == image.width && decoded.height == image.height)
        #expect(Self.difference(image, decoded).worst <= 2)
    }

    /// Colours that show in a few pixels far apart across a wide band (a map's names' and points'
    /// colours): the long gaps between them passed over, every pixel where it was.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sixel2png"), "needs sixel2png (scripts/setup installs libsixel-bin)"))
    func sparseColoursAcrossAWideBandStayWhereTheyWere() async throws {
        var random = SplitMix64(state: 60)
        var rgba = [UInt8](repeating: 0, count: 997 * 13 * 4)
        for pixel in 0..<997 * 13 { rgba[pixel * 4] = 242; rgba[pixel * 4 + 1] = 239; rgba[pixel * 4 + 2] = 233; rgba[pixel * 4 + 3] = 255 }
        for dot in 0..<200 {
            let pixel = Int(random.next() % UInt64(997 * 13))
            rgba[pixel * 4] = UInt8(dot % 8 * 32); rgba[pixel * 4 + 1] = UInt8(dot / 8 * 10); rgba[pixel * 4 + 2] = UInt8(255 - dot)
        }
        // And runs at a band's ends: its first and last columns in a colour of their own.
        for y in 0..<13 { for x in [0, 1, 995, 996] { rgba[(y * 997 + x) * 4] = 10; rgba[(y * 997 + x) * 4 + 1] = 200; rgba[(y * 997 + x) * 4 + 2] = 10 } }
        let image = RasterImage(width: 997, height: 13, rgba: rgba)
        let decoded = try await Self.throughSixel2png(image)
        try #require(decoded.width == image.width && decoded.height == image.height)
        #expect(Self.difference(image, decoded).worst <= 2)
    }

    /// More than 256 colours (a gradient of 4,096 beside flat fills): the fills stay exact, the
    /// gradient close.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sixel2png"), "needs sixel2png (scripts/setup installs libsixel-bin)"))
    func manyColoursShareThePaletteAndTheFillsStayExact() async throws {
        var rgba: [UInt8] = []
        for y in 0..<64 {
            for x in 0..<128 {
                rgba += x < 64 ? [UInt8(x * 4), UInt8(y * 4), UInt8((x + y) * 2), 255] : (y < 32 ? [242, 239, 233, 255] : [170, 211, 223, 255])
            }
        }
        let image = RasterImage(width: 128, height: 64, rgba: rgba)
        let decoded = try await Self.throughSixel2png(image)
        try #require(decoded.width == 128 && decoded.height == 64)
        #expect(Self.difference(image, decoded, from: 64).worst <= 2)
        let gradient = Self.difference(image, decoded)
        #expect(gradient.mean <= 4, "mean difference \(gradient.mean)")
    }

    /// A picture wider or taller than xterm takes (1,000 pixels a side by default: it drops a
    /// larger one whole) goes in pieces of about one size on whole cells, each the part of the
    /// picture it covers; a wide one in one piece a processor at least.
    @Test func sixelGoesInPiecesXtermTakes() {
        let image = Self.sample(width: 1_604, height: 1_020)
        let pieces = TerminalGraphics.sixelPieces(image, cell: (7, 17), processors: 1)
        // 230 cells of 7 pixels across (at most 142 a piece: two of 115), 60 of 17 down (at most 58: two of 30).
        #expect(pieces.map { [$0.column, $0.row] } == [[0, 0], [115, 0], [0, 30], [115, 30]])
        let sizes = pieces.map { piece in String(decoding: piece.bytes.prefix(30), as: UTF8.self).split(separator: "\"").dropFirst().first?.split(separator: "#").first }
        #expect(sizes == ["1;1;805;510", "1;1;799;510", "1;1;805;510", "1;1;799;510"])
        #expect(pieces[3].bytes == TerminalGraphics.sixel(image.region(x: 805..<1_604, y: 510..<1_020)))
        #expect(image.region(x: 805..<1_604, y: 510..<1_020).pixel(x: 30, y: 30) == image.pixel(x: 835, y: 540))
        #expect(TerminalGraphics.sixelPieces(Self.sample(), cell: (8, 16)).count == 1)
        // Four processors: four pieces across, each encoded on one.
        let four = TerminalGraphics.sixelPieces(image, cell: (7, 17), processors: 4)
        #expect(four.map(\.column) == [0, 57, 115, 172, 0, 57, 115, 172] && four.map(\.row) == [0, 0, 0, 0, 30, 30, 30, 30])
        #expect(four[5].bytes == TerminalGraphics.sixel(image.region(x: 57 * 7..<115 * 7, y: 510..<1_020)))
    }

    @Test func itermWrapsAPNGOfThePicture() throws {
        let image = Self.sample()
        let text = String(decoding: TerminalGraphics.iterm(image, columns: 8, rows: 3), as: UTF8.self)
        #expect(text.hasPrefix("\u{1B}]1337;File=inline=1;width=8;height=3;") && text.hasSuffix("\u{07}"))
        let payload = try #require(text.split(separator: ":").last).dropLast()
        let decoded = try RasterImage(decoding: try #require(Data(base64Encoded: String(payload))))
        #expect(decoded == image)
    }
}
