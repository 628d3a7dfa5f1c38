import Testing
import PoseCore

/// The one left ↔ right table (``BodyPart/mirrored``, ``Skeleton/mirroredTreeEdges``), checked
/// against the part names and by hand, not against the order arithmetic that builds it.
@Suite struct MirrorTableTests {
    /// A part's name with "left" and "right" exchanged: the independent expectation.
    static func mirroredName(_ name: String) -> String {
        if name.hasPrefix("left") { return "right" + name.dropFirst("left".count) }
        if name.hasPrefix("right") { return "left" + name.dropFirst("right".count) }
        return name
    }

    @Test func everyPartMirrorsToTheNameWithItsSideSwapped() {
        for part in BodyPart.allCases {
            #expect(part.mirrored.name == Self.mirroredName(part.name), "\(part)")
        }
    }

    @Test func theNoseIsItsOwnMirrorAndNoOtherPartIs() {
        #expect(BodyPart.nose.mirrored == .nose)
        #expect(BodyPart.allCases.filter { $0.mirrored == $0 } == [.nose])
        #expect(BodyPart.allCases.allSatisfy { $0.mirrored.side != $0.side || $0.side == .center })
    }

    @Test func mirroringTwiceGivesThePartBack() {
        for part in BodyPart.allCases { #expect(part.mirrored.mirrored == part, "\(part)") }
    }

    @Test func theTableByHand() {
        #expect(BodyPart.allCases.map(\.mirrored.rawValue) == [0, 2, 1, 4, 3, 6, 5, 8, 7, 10, 9, 12, 11, 14, 13, 16, 15])
        #expect(BodyPart.leftEye.mirrored == .rightEye && BodyPart.rightAnkle.mirrored == .leftAnkle)
    }

    @Test func treeEdgesMirrorToTheEdgeBetweenTheMirroredParts() {
        let edges = Skeleton.treeEdges
        #expect(Skeleton.mirroredTreeEdges.count == edges.count)
        for (e, m) in Skeleton.mirroredTreeEdges.enumerated() {
            #expect(edges[m].parent.name == Self.mirroredName(edges[e].parent.name), "edge \(e)")
            #expect(edges[m].child.name == Self.mirroredName(edges[e].child.name), "edge \(e)")
            #expect(Skeleton.mirroredTreeEdges[m] == e, "an involution: edge \(e)")
        }
        // TF.js poseChain: 0 nose→leftEye ↔ 2 nose→rightEye, 7 leftShoulder→leftHip ↔
        // 13 rightShoulder→rightHip, 15 rightKnee→rightAnkle ↔ 9 leftKnee→leftAnkle.
        #expect(Skeleton.mirroredTreeEdges[0] == 2 && Skeleton.mirroredTreeEdges[7] == 13 && Skeleton.mirroredTreeEdges[15] == 9)
    }
}
