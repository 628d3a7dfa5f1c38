import Foundation
import Testing
import PoseCore

/// The keypoint sets' tables against independent sources: the landmark tables of
/// `shared/reference/mediapipe/README.md` §6 (parsed here), the Create ML input order of
/// `shared/reference/createml/README.md`, and properties that hold for any body (mirror images).
@Suite struct KeypointSetTests {
    /// `$POSEKIT_SHARED`, else `<repo root>/../shared`.
    static let shared: URL = {
        if let path = ProcessInfo.processInfo.environment["POSEKIT_SHARED"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared")
    }()

    /// `left_eye_inner` → `leftEyeInner`.
    static func camelCase(_ snake: some StringProtocol) -> String {
        let words = snake.split(separator: "_")
        return words.enumerated().map { $0 == 0 ? String($1) : $1.prefix(1).uppercased() + $1.dropFirst() }.joined()
    }

    /// MediaPipe's hand landmark name as Vision names the joint: `index_finger_mcp` → `indexMCP`,
    /// `pinky_tip` → `littleTip`, `thumb_mcp` → `thumbMP` (Vision calls the thumb's MCP joint MP).
    static func visionHandName(_ snake: String) -> String {
        var words = snake.split(separator: "_").map(String.init).filter { $0 != "finger" }
        if words[0] == "pinky" { words[0] = "little" }
        if words == ["thumb", "mcp"] { words[1] = "mp" }
        guard words.count == 2 else { return words.joined() }   // "wrist"
        return words[0] + (words[1] == "tip" ? "Tip" : words[1].uppercased())
    }

    /// The table rows `| a | b | ... |` of `section` (up to the next table or heading), cells trimmed.
    static func tableRows(in text: String, after marker: String) throws -> [[String]] {
        let start = try #require(text.range(of: marker), "README lacks \(marker)")
        var rows: [[String]] = []
        var inTable = false
        for line in text[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("|") {
                inTable = true
                let cells = trimmed.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                if cells.allSatisfy({ $0.allSatisfy { $0 == "-" } }) { continue }   // the |---| line
                rows.append(cells)
            } else if inTable {
                break
            }
        }
        return Array(rows.dropFirst())   // the header
    }

    /// `1–3` or `7, 8` or `0` → the indices.
    static func indices(_ cell: String) -> [Int] {
        if let dash = cell.firstIndex(of: "–") {
            return Array(Int(cell[..<dash])!...Int(cell[cell.index(after: dash)...])!)
        }
        return cell.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces))! }
    }

    /// A landmark table (`| idx | name |`) as names by index; `_pip`-style cells continue the
    /// previous name's prefix (`index_finger_mcp, _pip` → `index_finger_pip`).
    static func landmarkNames(_ rows: [[String]]) -> [Int: String] {
        var names: [Int: String] = [:]
        for row in rows {
            let listed = row[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let stem = listed[0].contains("_") ? String(listed[0][..<listed[0].lastIndex(of: "_")!]) : listed[0]
            for (index, name) in zip(indices(row[0]), listed) { names[index] = name.hasPrefix("_") ? stem + name : name }
        }
        return names
    }

    static func readme() throws -> String {
        try String(contentsOf: shared.appendingPathComponent("reference/mediapipe/README.md"), encoding: .utf8)
    }

    @Test func blazePoseNamesAndCOCOMapAreTheReadme() throws {
        let text = try Self.readme()
        let names = Self.landmarkNames(try Self.tableRows(in: text, after: "BlazePose, 33"))
        #expect(names.count == 33)
        #expect(KeypointSet.blazePose33.names == (0..<33).map { Self.camelCase(names[$0]!) })

        // COCO-17 ← BlazePose: the two-column-pair table and the index list.
        var pairs: [(String, Int)] = []
        for row in try Self.tableRows(in: text, after: "**COCO-17 ← BlazePose:**") {
            for column in stride(from: 0, to: row.count - 1, by: 2) where !row[column].isEmpty {
                pairs.append((Self.camelCase(row[column]), Int(row[column + 1])!))
            }
        }
        #expect(pairs.count == 17)
        for (coco, index) in pairs {
            let part = try #require(BodyPart(name: coco), "\(coco) is not a COCO part")
            #expect(KeypointSet.blazePose33.index(of: part) == index, "\(coco)")
            #expect(KeypointSet.blazePose33.names[index] == coco, "\(coco) lands on \(KeypointSet.blazePose33.names[index])")
        }
        let list = try #require(text.range(of: "As an index list: ["))
        let listed = text[list.upperBound...].prefix { $0 != "]" }.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces))! }
        #expect(KeypointSet.blazePose33.cocoIndices.map { $0 ?? -1 } == listed)
        #expect(listed == [0, 2, 5, 7, 8, 11, 12, 13, 14, 15, 16, 23, 24, 25, 26, 27, 28])   // the brief's, by hand
    }

    @Test func handNamesAreTheReadmeInVisionSpelling() throws {
        let names = Self.landmarkNames(try Self.tableRows(in: try Self.readme(), after: "Hands, 21"))
        #expect(names.count == 21)
        #expect(KeypointSet.hand21.names == (0..<21).map { Self.visionHandName(names[$0]!) })
        // By hand, Vision's `VNHumanHandPoseObservation.JointName`s at a few places.
        #expect(Array(KeypointSet.hand21.names.prefix(6)) == ["wrist", "thumbCMC", "thumbMP", "thumbIP", "thumbTip", "indexMCP"])
        #expect(KeypointSet.hand21.names.last == "littleTip" && KeypointSet.hand21.names[12] == "middleTip")
        #expect(KeypointSet.hand21.cocoIndices.allSatisfy { $0 == nil } && !KeypointSet.hand21.coversCOCO17)
    }

    @Test func visionJointsAreCreateMLsInputOrder() throws {
        let text = try String(contentsOf: Self.shared.appendingPathComponent("reference/createml/README.md"), encoding: .utf8)
        let start = try #require(text.range(of: "`0 nose,"))
        let listed = text[text.index(after: start.lowerBound)...].prefix { $0 != "`" }
            .split(separator: ",").map { entry -> String in
                let words = entry.split(separator: " ").dropFirst()   // the index
                return words.enumerated().map { $0 == 0 ? String($1) : $1.prefix(1).uppercased() + $1.dropFirst() }.joined()
            }
        #expect(listed.count == 18)
        #expect(KeypointSet.vision18.names == listed)
        #expect(KeypointSet.vision18.coversCOCO17 && KeypointSet.vision18.index(of: "neck") == 1)
    }

    @Test func cocoMapsLandOnTheSameNames() {
        for set in KeypointSet.known {
            for part in BodyPart.allCases {
                guard let index = set.index(of: part) else { continue }
                #expect(set.names[index] == part.name, "\(set) \(part)")
            }
        }
        #expect(KeypointSet.coco17.names == BodyPart.allCases.map(\.name))
        #expect(KeypointSet.coco17.cocoIndices == (0..<17).map { $0 })
        #expect(KeypointSet.blazePose33.coversCOCO17 && KeypointSet.coco17.coversCOCO17)
    }

    /// A mirror image exchanges `left`/`Left` and `right`/`Right` in a name: the independent
    /// expectation for every set's mirror table, which must also be an involution.
    @Test func mirrorTablesSwapSidesByNameAndAreInvolutions() {
        func swapped(_ name: String) -> String {
            if name.hasPrefix("left") { return "right" + name.dropFirst(4) }
            if name.hasPrefix("right") { return "left" + name.dropFirst(5) }
            if name.hasSuffix("Left") { return name.dropLast(4) + "Right" }
            if name.hasSuffix("Right") { return name.dropLast(5) + "Left" }
            return name
        }
        for set in KeypointSet.known {
            #expect(set.mirrored.count == set.count)
            for (i, m) in set.mirrored.enumerated() {
                #expect(set.mirrored[m] == i, "\(set): not an involution at \(set.names[i])")
                #expect(set.names[m] == swapped(set.names[i]), "\(set): \(set.names[i]) mirrors to \(set.names[m])")
            }
        }
        #expect(KeypointSet.coco17.mirrored == BodyPart.allCases.map(\.mirrored.rawValue))
        #expect(KeypointSet.blazePose33.mirrored[9] == 10 && KeypointSet.blazePose33.mirrored[0] == 0)   // mouth, nose
        #expect(KeypointSet.hand21.mirrored == Array(0..<21))
        #expect(KeypointSet.blazePose33.sides[9] == .left && KeypointSet.blazePose33.sides[32] == .right)
    }

    /// Skeletons: the counts of MediaPipe's connection lists, symmetric under the mirror table,
    /// in the pieces each source draws.
    @Test func skeletonsAreSymmetricAndConnected() {
        #expect(KeypointSet.blazePose33.edges.count == 35 && KeypointSet.hand21.edges.count == 21)
        #expect(KeypointSet.coco17.edges.count == Skeleton.drawnEdges.count)
        for set in KeypointSet.known {
            let edges = Set(set.edges.map { [min($0.from, $0.to), max($0.from, $0.to)] })
            #expect(edges.count == set.edges.count, "\(set): a repeated edge")
            for edge in edges {
                let image = [set.mirrored[edge[0]], set.mirrored[edge[1]]].sorted()
                #expect(edges.contains(image), "\(set): \(set.names[edge[0]])–\(set.names[edge[1]]) has no mirror image")
            }
            var unreached = Set(0..<set.count), parts: [Set<Int>] = []
            while let seed = unreached.min() {
                var part: Set<Int> = [seed], frontier = [seed]
                while let point = frontier.popLast() {
                    for e in set.edges where e.from == point || e.to == point {
                        let other = e.from == point ? e.to : e.from
                        if part.insert(other).inserted { frontier.append(other) }
                    }
                }
                unreached.subtract(part)
                parts.append(part)
            }
            // By hand: MediaPipe draws BlazePose's face, mouth and body apart; TF.js PoseNet's
            // face apart from its body; a hand and Vision's joints (the neck joins the nose) are one piece.
            let expected: [KeypointSet: [Set<Int>]] = [
                .coco17: [Set(0...4), Set(5...16)], .blazePose33: [Set(0...8), [9, 10], Set(11...32)],
                .hand21: [Set(0...20)], .vision18: [Set(0...17)],
            ]
            #expect(parts == expected[set], "\(set): pieces \(parts.map { $0.sorted() })")
        }
    }

    @Test func knownSetsAreFoundByTheirNames() {
        #expect(KeypointSet.smallestKnown(holding: ["nose", "leftAnkle"]) == .coco17)
        #expect(KeypointSet.smallestKnown(holding: ["nose", "neck"]) == .vision18)
        #expect(KeypointSet.smallestKnown(holding: ["leftHeel"]) == .blazePose33)
        #expect(KeypointSet.smallestKnown(holding: ["thumbTip", "wrist"]) == .hand21)
        #expect(KeypointSet.smallestKnown(holding: ["thumbTip", "nose"]) == nil)
        #expect(KeypointSet.known(identifier: "blazePose33") === KeypointSet.blazePose33)
    }

    /// A pose from arrays (how a landmark model's output becomes a pose), and its COCO-17 view.
    @Test func posesFromArraysAndTheirCOCOView() throws {
        let set = KeypointSet.blazePose33
        let points = (0..<33).map { Point(x: Double($0), y: 100 + Double($0)) }
        let scores = (0..<33).map { Double($0) / 33 }
        let pose = Pose(keypointSet: set, points: points, scores: scores, visibilities: scores.map { 1 - $0 }, id: 4)
        #expect(pose.keypoints.count == 33 && pose.id == 4)
        #expect(abs(pose.score - scores.reduce(0, +) / 33) < 1e-12)
        #expect(pose[.leftHip].position == Point(x: 23, y: 123) && pose.keypoint(named: "rightFootIndex")?.position.x == 32)
        #expect(pose.keypoints[2].visibility == 1 - 2.0 / 33)
        let coco = try #require(pose.cocoSeventeen)
        #expect(coco.keypointSet == .coco17 && coco.id == 4 && coco.score == pose.score)
        #expect(coco.keypoints.map(\.position.x) == [0, 2, 5, 7, 8, 11, 12, 13, 14, 15, 16, 23, 24, 25, 26, 27, 28])
        let hand = Pose(keypointSet: .hand21, points: Array(points.prefix(21)), scores: Array(scores.prefix(21)))
        #expect(hand.cocoSeventeen == nil && hand.keypoint(.nose) == nil && hand.keypoint(named: "thumbTip")?.position.x == 4)
        #expect(hand != Pose(keypoints: hand.keypoints.prefix(17).map { $0 }, score: hand.score))   // other set, other pose
    }

    @Test func clampingMovesOnlyPointsOutsideTheImage() {
        let pose = Pose(keypointSet: .hand21, points: (0..<21).map { Point(x: Double($0) * 10 - 20, y: Double($0) * -3 + 5) },
                        scores: Array(repeating: 0.9, count: 21))
        let clamped = pose.clamped(width: 100, height: 50)
        for (a, b) in zip(pose.keypoints, clamped.keypoints) {
            #expect(b.position.x == min(max(a.position.x, 0), 99) && b.position.y == min(max(a.position.y, 0), 49))
        }
        #expect(pose.clamped(width: 0, height: 0) == pose)
    }
}
