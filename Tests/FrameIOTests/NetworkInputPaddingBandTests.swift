import Testing
@testable import FrameIO
import PoseCore
import TestSupport

/// ``NetworkInputWriter/paddingBand`` against a brute-force scan of written inputs: the rows
/// (columns) every value of which is the padding color (the scaling's bias), bit for bit. The
/// frames are never black anywhere, so a row (column) is all padding only where the frame does
/// not reach it.
@Suite struct NetworkInputPaddingBandTests {
    /// Landscape, portrait, square, tiny, odd, 16:9, 4:3, 9:16; 1311x1254 at 513 and 1724x943 at
    /// 257 have a last frame row whose taps weigh 2e-14 and 4e-5 of it.
    static let frameSizes: [(Int, Int)] = [
        (640, 480), (480, 640), (1280, 720), (720, 1280), (1920, 1080), (1080, 1920), (960, 540), (540, 960),
        (500, 500), (257, 257), (1, 1), (2, 1), (1, 2), (3, 2), (2, 3), (17, 5), (5, 17), (40, 20),
        (641, 481), (639, 479), (481, 641), (333, 250), (101, 100), (100, 101), (1311, 1254), (943, 1724),
    ]
    static let sizes = [257, 353, 513]

    /// Luma 32...235, chroma 16...240: every pixel converts to a color with a channel above 0.
    static func frame(width: Int, height: Int, seed: UInt64) -> YUVFrame {
        var frame = YUVFrame(format: YUVFormat(width: width, height: height, chroma: .c420mpeg2))
        var generator = SeededGenerator(seed: seed)
        let lumaCount = width * height
        for i in frame.data.indices {
            let r = Int(generator.next() >> 40)
            frame.data[i] = i < lumaCount ? UInt8(32 + r % 204) : UInt8(16 + r % 225)
        }
        return frame
    }

    /// RGB bytes 1...255: no pixel is black.
    static func image(width: Int, height: Int, seed: UInt64) -> RGBImage {
        var generator = SeededGenerator(seed: seed)
        return RGBImage(width: width, height: height, pixels: (0..<(width * height * 3)).map { _ in UInt8(1 + generator.next() % 255) })
    }

    /// Brute force: the rows and the columns of `input` (`[size, size, 3]`) all of whose values
    /// are `padding` (R, G, B), bit for bit.
    static func paddingRowsAndColumns(_ input: [Float], size: Int, padding: [Float]) -> (rows: Set<Int>, columns: Set<Int>) {
        func isPadding(_ y: Int, _ x: Int) -> Bool {
            (0..<3).allSatisfy { input[(y * size + x) * 3 + $0].bitPattern == padding[$0].bitPattern }
        }
        return (Set((0..<size).filter { y in (0..<size).allSatisfy { isPadding(y, $0) } }),
                Set((0..<size).filter { x in (0..<size).allSatisfy { isPadding($0, x) } }))
    }

    /// Checks one writer on one written input. Rows (columns) outside the band may be all padding
    /// only where rounding erases the frame: taps weighing under half a level of 255 in the RGB
    /// path (which rounds to bytes), under 1e-6 in the Y'CbCr path (whose values are within
    /// 1e-6·255·scale of the bias, below a float's resolution there).
    static func check(_ writer: NetworkInputWriter, _ input: [Float], rgb: Bool, _ what: String) {
        let size = writer.size, padding = writer.scaling.bias
        let found = paddingRowsAndColumns(input, size: size, padding: padding)
        let band = writer.paddingBand
        let bandRows = band?.axis == .rows ? Set(band!.range) : [], bandColumns = band?.axis == .columns ? Set(band!.range) : []
        #expect(bandRows.isSubset(of: found.rows) && bandColumns.isSubset(of: found.columns),
                "\(what): band \(band.map { "\($0)" } ?? "none") holds a row or column of the frame (all padding: rows \(found.rows.sorted()), columns \(found.columns.sorted()))")
        let vanishing: Float = rgb ? 0.5 / 255 : 1e-6
        for (axis, extra, table) in [("row", found.rows.subtracting(bandRows), writer.rows),
                                     ("column", found.columns.subtracting(bandColumns), writer.columns)] {
            for index in extra.sorted() {
                #expect(table.realSum[index] < vanishing,
                        "\(what): \(axis) \(index) is all padding but outside the band \(band.map { "\($0)" } ?? "none") (its taps weigh \(table.realSum[index]))")
            }
        }
    }

    @Test(arguments: sizes)
    func theBandIsTheRowsOrColumnsOfPaddingOnly(_ size: Int) throws {
        for (index, (width, height)) in Self.frameSizes.enumerated() {
            for geometry in [InputPlacement.Fit.letterbox, .stretch] {
                let what = "\(width)x\(height) → \(size) \(geometry)"
                let yuvWriter = try NetworkInputWriter(sourceWidth: width, sourceHeight: height, size: size, geometry: geometry)
                var input = [Float](repeating: .nan, count: yuvWriter.outputCount)
                input.withUnsafeMutableBufferPointer { yuvWriter.write(Self.frame(width: width, height: height, seed: UInt64(index)), into: $0) }
                Self.check(yuvWriter, input, rgb: false, what + " Y'CbCr")

                let rgbWriter = try NetworkInputWriter(sourceWidth: width, sourceHeight: height, size: size, geometry: geometry,
                                                       chroma: .c444)
                input.withUnsafeMutableBufferPointer { rgbWriter.write(Self.image(width: width, height: height, seed: UInt64(index)), into: $0) }
                Self.check(rgbWriter, input, rgb: true, what + " RGB")

                // The geometry, independently: a letterbox pads the shorter side's axis after the frame.
                let expectedAxis: PaddingBand.Axis? = geometry == .stretch || width == height ? nil : width > height ? .rows : .columns
                #expect(yuvWriter.paddingBand?.axis == expectedAxis && rgbWriter.paddingBand == yuvWriter.paddingBand, "\(what)")
                #expect(yuvWriter.paddingBand.map { $0.range.upperBound == size && $0.range.lowerBound > 0 } ?? true, "\(what)")
            }
        }
    }

    /// The examples of ``PaddingBand``'s documentation.
    @Test func documentedBands() throws {
        #expect(try NetworkInputWriter(sourceWidth: 640, sourceHeight: 480, size: 257).paddingBand == PaddingBand(axis: .rows, range: 194..<257))
        #expect(try NetworkInputWriter(sourceWidth: 720, sourceHeight: 1280, size: 257).paddingBand == PaddingBand(axis: .columns, range: 145..<257))
        #expect(try NetworkInputWriter(sourceWidth: 640, sourceHeight: 640, size: 257).paddingBand == nil)
        #expect("\(PaddingBand(axis: .rows, range: 194..<257))" == "rows 194..<257")
    }
}
