import Foundation
import Testing

/// BlazePose for everyone in the frame (`--max-poses N`: the people BlazePose's own detector misses found
/// through PoseNet's multi-person poses, one region each; a person BlazePose's landmark model reads in none of their
/// regions reported from PoseNet's pose; docs/blazepose.md, "Everyone in the frame"), on the held-out
/// `media/images-val` (every rule was chosen on `media/images`), against PoseNet run in the same test.
///
/// The bars: COCO AP at least PoseNet's (held: 0.669 against 0.620 when measured, with the blend of wave 10), and as many people as
/// PoseNet, held but for one: on `mpi_inf_3dhp_S8…` PoseNet gives the one person two poses, 0.26 (its points 0.269 of
/// their size from the labels, over the 0.25 that counts as found) and 0.09 (0.235, found); BlazePose reads them in no
/// region (PoseNet's partial pose gives a region a third of the bent-over body: docs/blazepose.md, wave 10), so they are
/// reported from PoseNet's first pose, and the second, lying on a person reported already, is not reported twice.
/// So: people found ≥ PoseNet's count less that one; crowded photos (3 people or more): as many people as PoseNet, and
/// AP at least 0.60 (0.611 measured with the blend, 0.588 without; PoseNet 0.617: not reached there, by BlazePose's localisation on two photos). With `--blazepose-only`
/// the output is BlazePose's own landmarks, the output without it less the people reported from PoseNet and the blend.
/// On video one id per person, held.
@Suite(.serialized) struct BlazePoseEveryoneTests {
    static let folder = CLI.shared.appendingPathComponent("media/images-val")
    static let names = ["nose", "leftEye", "rightEye", "leftEar", "rightEar", "leftShoulder", "rightShoulder", "leftElbow", "rightElbow",
                        "leftWrist", "rightWrist", "leftHip", "rightHip", "leftKnee", "rightKnee", "leftAnkle", "rightAnkle"]

    struct Truth {
        var images: [(id: Int, ppm: String)]
        var people: [Int: [(keypoints: [Double], area: Double)]]
        var json: [String: Any]
    }

    static func truth() throws -> Truth {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("ground_truth.json"))) as? [String: Any])
        let images = try #require(json["images"] as? [[String: Any]]).map { ($0["id"] as! Int, $0["ppm_file"] as! String) }
        var people: [Int: [(keypoints: [Double], area: Double)]] = [:]
        for a in try #require(json["annotations"] as? [[String: Any]]) {
            people[a["image_id"] as! Int, default: []].append(((a["keypoints"] as! [NSNumber]).map(\.doubleValue), (a["area"] as! NSNumber).doubleValue))
        }
        return Truth(images: images, people: people, json: json)
    }

    /// Labelled people a pose lies on (its points within 0.25·√area of the labels on average), each pose and person once, nearest first.
    static func found(_ lines: [String], _ truth: Truth) throws -> Int {
        var total = 0
        for line in lines {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let source = (record["source"] as! String as NSString).lastPathComponent
            guard let image = truth.images.first(where: { $0.ppm == source })?.id else { continue }
            var pairs: [(error: Double, pose: Int, person: Int)] = []
            for (p, pose) in (record["poses"] as? [[String: Any]] ?? []).enumerated() {
                var points: [String: (Double, Double)] = [:]
                for k in pose["keypoints"] as! [[String: Any]] { points[k["part"] as! String] = ((k["x"] as! NSNumber).doubleValue, (k["y"] as! NSNumber).doubleValue) }
                for (g, person) in (truth.people[image] ?? []).enumerated() where person.area > 0 {
                    var sum = 0.0, count = 0
                    for (i, name) in Self.names.enumerated() where person.keypoints[3 * i + 2] > 0 {
                        guard let q = points[name] else { continue }
                        sum += ((q.0 - person.keypoints[3 * i]) * (q.0 - person.keypoints[3 * i]) + (q.1 - person.keypoints[3 * i + 1]) * (q.1 - person.keypoints[3 * i + 1])).squareRoot()
                        count += 1
                    }
                    if count > 0, sum / Double(count) / person.area.squareRoot() <= 0.25 { pairs.append((sum / Double(count) / person.area.squareRoot(), p, g)) }
                }
            }
            var poses = Set<Int>(), people = Set<Int>()
            for pair in pairs.sorted(by: { $0.error < $1.error }) where !poses.contains(pair.pose) && !people.contains(pair.person) {
                poses.insert(pair.pose); people.insert(pair.person); total += 1
            }
        }
        return total
    }

    /// COCO AP of `posekit eval` with `model` on `images` against `groundTruth`.
    static func ap(_ model: [String], groundTruth: String, images: [String]) throws -> Double {
        let result = try CLI.run(["eval", "--ground-truth", groundTruth, "--json"] + model + images)
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(result.lines.last)
        return try #require((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["AP"] as? Double)
    }

    /// The one person of `images-val` PoseNet finds only with its second pose on her (above).
    static let secondPoseOnly = ["mpi_inf_3dhp_S8_Seq1_Cam8_002165.ppm"]

    @Test func blazePoseFindsEveryonePoseNetFindsOnHeldOutPhotos() throws {
        let truth = try Self.truth()
        let paths = truth.images.map { Self.folder.appendingPathComponent($0.ppm).path }
        let blaze = ["--model", "blazepose", "--max-poses", "5"]
        let blazeLines = try CLI.run(["pose"] + blaze + paths), poseNetLines = try CLI.run(["pose"] + paths)
        #expect(blazeLines.status == 0 && poseNetLines.status == 0)
        let blazeFound = try Self.found(blazeLines.lines, truth), poseNetFound = try Self.found(poseNetLines.lines, truth)
        print("BlazePoseEveryoneTests: people found on images-val: BlazePose --max-poses 5 \(blazeFound), PoseNet \(poseNetFound)")
        #expect(blazeFound >= poseNetFound - Self.secondPoseOnly.count)

        let groundTruth = Self.folder.appendingPathComponent("ground_truth.json").path
        let blazeAP = try Self.ap(blaze, groundTruth: groundTruth, images: paths), poseNetAP = try Self.ap([], groundTruth: groundTruth, images: paths)
        // The crowded photos: 3 labelled people or more.
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let crowded = truth.images.filter { (truth.people[$0.id]?.count ?? 0) >= 3 }
        var subset = truth.json
        subset["images"] = (truth.json["images"] as! [[String: Any]]).filter { image in crowded.contains { $0.id == image["id"] as! Int } }
        subset["annotations"] = (truth.json["annotations"] as! [[String: Any]]).filter { a in crowded.contains { $0.id == a["image_id"] as! Int } }
        let crowdedTruth = dir.appendingPathComponent("crowded.json")
        try JSONSerialization.data(withJSONObject: subset).write(to: crowdedTruth)
        var crowdedSubset = truth
        crowdedSubset.images = crowded
        let crowdedPaths = crowded.map { Self.folder.appendingPathComponent($0.ppm).path }
        let blazeCrowded = try Self.ap(blaze, groundTruth: crowdedTruth.path, images: crowdedPaths)
        let poseNetCrowded = try Self.ap([], groundTruth: crowdedTruth.path, images: crowdedPaths)
        let blazeCrowdedFound = try Self.found(try CLI.run(["pose"] + blaze + crowdedPaths).lines, crowdedSubset)
        let poseNetCrowdedFound = try Self.found(try CLI.run(["pose"] + crowdedPaths).lines, crowdedSubset)
        print("BlazePoseEveryoneTests: AP images-val BlazePose \(blazeAP), PoseNet \(poseNetAP); crowded (\(crowded.count) photos) \(blazeCrowded), \(poseNetCrowded); found there \(blazeCrowdedFound), \(poseNetCrowdedFound)")
        #expect(crowded.count >= 3)
        #expect(blazeAP >= poseNetAP, "AP \(blazeAP), PoseNet's \(poseNetAP)")
        #expect(blazeCrowded >= 0.60 && blazeCrowdedFound >= poseNetCrowdedFound, "crowded AP \(blazeCrowded), found \(blazeCrowdedFound) of PoseNet's \(poseNetCrowdedFound)")
    }

    /// The JSON objects of the poses of each line of `lines` (parsed).
    static func poses(_ lines: [String]) throws -> [[[String: Any]]] {
        try lines.map { line in
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return record["poses"] as? [[String: Any]] ?? []
        }
    }

    /// On `mhp_10112` BlazePose reads the small person in none of their 12 regions (docs/blazepose.md): she is
    /// PoseNet's pose, named so, with COCO-17's points only; `--blazepose-only` gives the rest exactly.
    @Test func aPersonBlazePoseCannotReadIsPoseNetsPoseAndSaysSo() throws {
        let image = Self.folder.appendingPathComponent("mhp_10112.ppm").path
        let everyone = try CLI.run(["pose", "--model", "blazepose", "--max-poses", "5", image])
        let only = try CLI.run(["pose", "--model", "blazepose", "--max-poses", "5", "--blazepose-only", image])
        let poseNet = try CLI.run(["pose", image])
        #expect(everyone.status == 0 && only.status == 0 && poseNet.status == 0, "\(everyone.stderr)\(only.stderr)")
        let mixed = try #require(try Self.poses(everyone.lines).first), own = try #require(try Self.poses(only.lines).first)
        let poseNetPoses = try #require(try Self.poses(poseNet.lines).first)
        let fromPoseNet = mixed.filter { $0["landmarks_from"] != nil }
        #expect(fromPoseNet.count == 1 && mixed.count == own.count + 1)
        let person = try #require(fromPoseNet.first)
        #expect(person["landmarks_from"] as? String == "posenet" && person["world"] == nil)
        let keypoints = try #require(person["keypoints"] as? [[String: Any]])
        #expect(keypoints.count == 33 && keypoints.allSatisfy { $0["visibility"] == nil && $0["presence"] == nil && $0["z"] == nil })
        // Its COCO-17 points are one of PoseNet's own poses, point for point, score for score; the other 16 score 0.
        let byName = Dictionary(uniqueKeysWithValues: keypoints.map { ($0["part"] as! String, $0) })
        let same = poseNetPoses.contains { pose in
            (pose["score"] as? NSNumber) == (person["score"] as? NSNumber) && (pose["keypoints"] as! [[String: Any]]).allSatisfy { k in
                let mine = byName[k["part"] as! String]
                return mine?["x"] as? NSNumber == k["x"] as? NSNumber && mine?["y"] as? NSNumber == k["y"] as? NSNumber
                    && mine?["score"] as? NSNumber == k["score"] as? NSNumber
            }
        }
        #expect(same, "the pose from PoseNet is none of PoseNet's poses")
        #expect(keypoints.filter { !Self.names.contains($0["part"] as! String) }.allSatisfy { ($0["score"] as? NSNumber)?.doubleValue == 0 })
        // Without PoseNet's people, what BlazePose read, byte for byte.
        #expect(own.allSatisfy { $0["landmarks_from"] == nil && $0["world"] != nil })
        // Without PoseNet's points blended in (the default reports the readings of PoseNet's people at the two models'
        // mean, docs/blazepose.md): the same readings but for the positions (and the box they make).
        func withoutPositions(_ pose: [String: Any]) -> [String: Any] {
            var pose = pose
            pose["box"] = nil
            pose["keypoints"] = (pose["keypoints"] as! [[String: Any]]).map { var k = $0; k["x"] = nil; k["y"] = nil; return k }
            return pose
        }
        let rest = mixed.filter { $0["landmarks_from"] == nil }
        #expect(try rest.map { try JSONSerialization.data(withJSONObject: withoutPositions($0), options: .sortedKeys) }
                == own.map { try JSONSerialization.data(withJSONObject: withoutPositions($0), options: .sortedKeys) })
    }

    @Test func everyoneKeepsOneIDOnVideo() throws {
        // A three-person photo (BlazePose's detector finds one; PoseNet the other two) as a five-frame video.
        let image = Self.folder.appendingPathComponent("aic_054d9ce9201beffc76e5ff2169d2af2f027002ca.ppm").path
        let result = try CLI.run(["pose", "--model", "blazepose", "--max-poses", "5", "--video"] + Array(repeating: image, count: 5))
        #expect(result.status == 0, "\(result.stderr)")
        var ids: [[Int]] = []
        for line in result.lines {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            ids.append((record["poses"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }.sorted())
        }
        #expect(ids.count == 5 && Set(ids).count == 1 && ids[0].count == 3, "\(ids)")
    }

    @Test func aPersonFromPoseNetKeepsOneIDOnVideo() throws {
        // mhp_10112 as a five-frame video: the person BlazePose reads and the small one it cannot (PoseNet's pose).
        let image = Self.folder.appendingPathComponent("mhp_10112.ppm").path
        let result = try CLI.run(["pose", "--model", "blazepose", "--max-poses", "5", "--video"] + Array(repeating: image, count: 5))
        #expect(result.status == 0, "\(result.stderr)")
        var ids: [[Int]] = [], fromPoseNet: [Int?] = []
        for poses in try Self.poses(result.lines) {
            ids.append(poses.compactMap { $0["id"] as? Int }.sorted())
            let read = poses.filter { $0["landmarks_from"] as? String == "posenet" }
            fromPoseNet.append(read.count == 1 ? read[0]["id"] as? Int : nil)
        }
        #expect(ids.count == 5 && Set(ids).count == 1 && ids[0].count == 2, "\(ids)")
        #expect(fromPoseNet.allSatisfy { $0 != nil && $0 == fromPoseNet[0] }, "\(fromPoseNet)")
    }
}
