import Foundation
import MediaPipe
import PoseEvaluation
import PoseKit
import Testing

/// BlazePose for everyone reports a person PoseNet found too at the mean of the two models' points
/// (`BlazePoseRegionFromPose.blend`, docs/blazepose.md "Everyone in the frame"): a hand-checked fixture of the
/// blend, and on `media/images`' crowded photos (where it was measured) against PoseNet run in the same test and
/// BlazePose without the blend: every blended point lies midway, and the poses lie nearer the labels.
@Suite(.serialized) struct BlazePoseSeedBlendTests {
    static let folder = CLI.shared.appendingPathComponent("media/images")
    static let crowded = ["coco_000000040083.ppm", "coco_000000196141.ppm", "coco_000000197388.ppm"]

    @Test func aBlendIsTheMeanOfTheConfidentPointsAndTheirHangersOn() {
        // 33 landmarks in a 200 × 100 image, every one at (0.5, 0.5); the seed is sure of the left wrist and the nose.
        let size = ImageSize(width: 200, height: 100)
        let landmarks = [Landmark](repeating: Landmark(x: 0.5, y: 0.5, z: 0.1, visibility: 0.9, presence: 0.8), count: 33)
        let names = KeypointSet.blazePose33.names
        let wrist = names.firstIndex(of: "leftWrist")!, nose = names.firstIndex(of: "nose")!
        let seed = BlazePosePersonSeed(region: NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1),
                                       points: [(wrist, SIMD2(140, 30)), (nose, SIMD2(100, 70))], size: 100)
        let blended = seed.blended(landmarks, imageSize: size, weight: 0.5)
        // The wrist: pixels (100, 50) and (140, 30) → (120, 40) = (0.6, 0.4); its fingers move as it does.
        for name in ["leftWrist", "leftPinky", "leftIndex", "leftThumb"] {
            let l = blended[names.firstIndex(of: name)!]
            #expect(abs(l.x - 0.6) < 1e-6 && abs(l.y - 0.4) < 1e-6, "\(name) \(l)")
        }
        // The nose: (100, 50) and (100, 70) → (100, 60); the mouth hangs off it.
        for name in ["nose", "mouthLeft", "mouthRight"] {
            let l = blended[names.firstIndex(of: name)!]
            #expect(abs(l.x - 0.5) < 1e-6 && abs(l.y - 0.6) < 1e-6, "\(name) \(l)")
        }
        // Points the seed is not sure of, and what hangs off them, stay; depth, visibility and presence are BlazePose's.
        for name in ["rightWrist", "rightIndex", "leftAnkle", "leftHeel", "leftShoulder"] {
            #expect(blended[names.firstIndex(of: name)!] == landmarks[0], "\(name)")
        }
        #expect(blended.allSatisfy { $0.z == 0.1 && $0.visibility == 0.9 && $0.presence == 0.8 })
        // No blend, or a weight out of 0...1, or not 33 landmarks: unchanged.
        #expect(seed.blended(landmarks, imageSize: size, weight: 0) == landmarks)
        #expect(seed.blended(landmarks, imageSize: size, weight: .nan) == landmarks)
        #expect(seed.blended(Array(landmarks.prefix(17)), imageSize: size, weight: 0.5) == Array(landmarks.prefix(17)))
    }

    /// The summed distance (|dx| + |dy|) of two poses' points, landmark by landmark.
    static func apart(_ a: Pose, _ b: Pose) -> Double {
        var total = 0.0
        for (p, q) in zip(a.keypoints, b.keypoints) { total += abs(p.position.x - q.position.x) + abs(p.position.y - q.position.y) }
        return total
    }

    static func coco17(_ pose: Pose) -> [Point] {
        BodyPart.allCases.map { part in pose.keypoint(named: part.name)?.position ?? Point(x: .nan, y: .nan) }
    }

    /// The PoseNet pose a reading lies on, as the seed measures it (its points scoring ≥ 0.3, over their box's
    /// diagonal), and that distance.
    static func nearest(_ reading: Pose, in poseNet: [Pose]) -> (pose: Pose, distance: Double)? {
        let points = coco17(reading)
        return poseNet.compactMap { pose -> (Pose, Double)? in
            let confident = pose.keypoints.indices.filter { pose.keypoints[$0].score >= 0.3 }
            guard let first = confident.first else { return nil }
            var low = pose.keypoints[first].position, high = low, total = 0.0
            for k in confident {
                let p = pose.keypoints[k].position
                low = Point(x: min(low.x, p.x), y: min(low.y, p.y)); high = Point(x: max(high.x, p.x), y: max(high.y, p.y))
                total += ((points[k].x - p.x) * (points[k].x - p.x) + (points[k].y - p.y) * (points[k].y - p.y)).squareRoot()
            }
            let size = ((high.x - low.x) * (high.x - low.x) + (high.y - low.y) * (high.y - low.y)).squareRoot()
            return size > 0 ? (pose, total / Double(confident.count) / size) : nil
        }.min { $0.1 < $1.1 }
    }

    @Test func blendedReadingsLieMidwayAndNearerTheLabels() throws {
        let truth = try CocoKeypointDataset(contentsOf: Self.folder.appendingPathComponent("ground_truth.json"))
        let blending = BlazePoseDetector.Configuration(maximumPoses: 5)
        var own = blending
        own.personRegion.blend = 0
        #expect(blending.personRegion.blend == 0.5)
        let withBlend = try BlazePoseDetector.everyone(configuration: blending), without = try BlazePoseDetector.everyone(configuration: own)
        let poseNet = try PoseDetector(model: .default)
        var oks: (blended: [Double], own: [Double], poseNet: [Double]) = ([], [], [])
        var blendedCount = 0
        for name in Self.crowded {
            let image = try RGBImage(contentsOfFile: Self.folder.appendingPathComponent(name).path)
            let people = try poseNet.poses(in: image), blended = try withBlend.poses(in: image), read = try without.poses(in: image)
            for pose in blended where pose.landmarksFrom == nil {
                // Its own reading: the unblended pose whose (BlazePose-only) landmarks beyond COCO-17 lie nearest.
                let own = read.filter { $0.landmarksFrom == nil }
                let mine = try #require(own.min { Self.apart($0, pose) < Self.apart($1, pose) })
                guard let (person, distance) = Self.nearest(mine, in: people), distance <= Double(blending.personRegion.closeEnough) else {
                    #expect(Self.coco17(pose) == Self.coco17(mine), "\(name): a reading on nobody of PoseNet's is BlazePose's own")
                    continue
                }
                blendedCount += 1
                for part in BodyPart.allCases {
                    let b: Point = try #require(pose.keypoint(named: part.name)).position
                    let m: Point = try #require(mine.keypoint(named: part.name)).position
                    let p = person[part]
                    let expected = p.score >= 0.3 ? Point(x: (m.x + p.position.x) / 2, y: (m.y + p.position.y) / 2) : m
                    #expect(abs(b.x - expected.x) < 0.05 && abs(b.y - expected.y) < 0.05, "\(name) \(part.name): \(b), expected \(expected)")
                }
            }
            // Each labelled person's best OKS with each model's poses.
            let id = try #require(truth.image(named: name.replacingOccurrences(of: ".ppm", with: ".jpg"))).id
            for person in truth.annotations where person.imageID == id {
                func best(_ poses: [Pose]) -> Double { poses.map { ObjectKeypointSimilarity.similarity(detection: Self.coco17($0), groundTruth: person) }.max() ?? 0 }
                oks.blended.append(best(blended)); oks.own.append(best(read)); oks.poseNet.append(best(people))
            }
        }
        let mean = { (values: [Double]) in values.reduce(0, +) / Double(values.count) }
        print("BlazePoseSeedBlendTests: images crowded, \(oks.own.count) people, \(blendedCount) readings blended; mean OKS blended \(mean(oks.blended)), BlazePose's own \(mean(oks.own)), PoseNet \(mean(oks.poseNet))")
        #expect(blendedCount >= 8 && oks.own.count == 13)
        // Measured (docs/blazepose.md): the blend lies nearer the labels than either model alone.
        #expect(mean(oks.blended) > mean(oks.own) && mean(oks.blended) > mean(oks.poseNet))
        #expect(zip(oks.blended, oks.own).filter { $0 > $1 + 0.005 }.count > zip(oks.blended, oks.own).filter { $0 < $1 - 0.005 }.count)
    }

    /// On video the blend is left out (a tracked person has no seed beside them after their first frame, so blending
    /// where one lies would make them jump): three frames of a crowded photo through a stream's worker give the same
    /// poses, frame by frame, with the blend on as with it off, while the photo itself is blended.
    @Test func videoFramesAreNotBlended() throws {
        let image = try RGBImage(contentsOfFile: Self.folder.appendingPathComponent("coco_000000040083.ppm").path)
        let blending = BlazePoseDetector.Configuration(maximumPoses: 5)
        var own = blending
        own.personRegion.blend = 0
        let withBlend = try BlazePoseDetector.everyone(configuration: blending), without = try BlazePoseDetector.everyone(configuration: own)
        // The photo: some point moves (else this test could not tell the two apart).
        let photo = try withBlend.poses(in: image).map(Self.coco17), photoOwn = try without.poses(in: image).map(Self.coco17)
        #expect(photo.count == photoOwn.count && photo != photoOwn, "the photo is blended")
        let workers = (try withBlend.makeFrameWorker(threads: 1, smoothing: true), try without.makeFrameWorker(threads: 1, smoothing: true))
        for index in 0..<3 {
            let frame = VideoFrame(image: image, index: index, time: Double(index) / 30, isStillImage: false)
            let blended = try workers.0.poses(in: frame), read = try workers.1.poses(in: frame)
            #expect(!blended.isEmpty, "frame \(index): people found")
            #expect(blended.map(Self.coco17) == read.map(Self.coco17), "frame \(index): BlazePose's own points")
        }
    }

    /// The same on a shared clip, through the command as a user runs it: the squat clip's first second with
    /// `--max-poses 3` gives BlazePose's own points on every frame, as `--blazepose-only` does (the people
    /// BlazePose read; a person reported from PoseNet's pose is left out of the comparison).
    @Test func theCommandDoesNotBlendVideo() throws {
        let clip = CLI.shared.appendingPathComponent("media/videos/yuyoujiang_test_video__squat.mp4")
        let y4m = try CLI.ffmpeg(["-i", clip.path, "-t", "1", "-vf", "scale=320:-2", "-f", "yuv4mpegpipe", "-"])
        let everyone = try CLI.run(["pose", "--model", "blazepose", "--max-poses", "3", "-"], stdin: y4m)
        let own = try CLI.run(["pose", "--model", "blazepose", "--max-poses", "3", "--blazepose-only", "-"], stdin: y4m)
        #expect(everyone.status == 0 && own.status == 0, "stderr: \(everyone.stderr) \(own.stderr)")
        func readings(_ result: CLI.Result) throws -> [[[Double]]] {
            try result.lines.map { line in
                let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let poses = (record["poses"] as? [[String: Any]] ?? []).filter { $0["landmarks_from"] == nil }
                return poses.map { pose in
                    (pose["keypoints"] as? [[String: Any]] ?? []).flatMap { [(($0["x"] as? NSNumber)?.doubleValue) ?? .nan, (($0["y"] as? NSNumber)?.doubleValue) ?? .nan] }
                }
            }
        }
        let (blended, read) = (try readings(everyone), try readings(own))
        #expect(blended.count == 30 && read.count == 30)
        #expect(blended.filter { !$0.isEmpty }.count >= 25, "the squatting person is read")
        #expect(blended == read, "video frames carry BlazePose's own points")
    }
}
